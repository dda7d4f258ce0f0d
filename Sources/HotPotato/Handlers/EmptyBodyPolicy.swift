/// What ``JSONParser`` does with an empty body on a response that should have had one (a `200`
/// with no bytes). Responses that have no body by definition (`204`, `205`, `304`, `HEAD`) always
/// read as `null`.
public enum EmptyBodyPolicy: Sendable, Hashable {
    /// Fail with ``HotPotatoError/Code/emptyBody`` (the default, as Moya's
    /// `mapJSON(failsOnEmptyData: true)`).
    case fail
    /// Read the empty body as JSON `null`.
    case null
}
