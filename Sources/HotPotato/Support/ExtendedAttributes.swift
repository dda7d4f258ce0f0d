import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's extended attributes, where its file system keeps them. Glibc's Swift overlay does not
/// import `<sys/xattr.h>`, so on Linux the two calls are found in the C library at run time.
enum ExtendedAttributes {
    /// The attribute `name` of the file at `path` (links followed), at most `limit` bytes; `nil`
    /// when it has none, or the file system keeps none.
    static func value(_ name: String, atPath path: String, limit: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        #if canImport(Darwin)
        let count = getxattr(path, name, &buffer, buffer.count, 0, 0)
        #else
        guard let get = linux.get else { return nil }
        let count = get(path, name, &buffer, buffer.count)
        #endif
        guard count >= 0, count <= limit else { return nil }
        return Array(buffer[..<count])
    }

    /// Sets the attribute `name` of the open file `descriptor`; `false` when it could not be set.
    @discardableResult
    static func set(_ name: String, to value: [UInt8], on descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        return value.withUnsafeBytes { fsetxattr(descriptor, name, $0.baseAddress, $0.count, 0, 0) } == 0
        #else
        guard let set = linux.set else { return false }
        return value.withUnsafeBytes { set(descriptor, name, $0.baseAddress, $0.count, 0) } == 0
        #endif
    }

    #if !canImport(Darwin)
    private typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    private typealias Set = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32

    private static let linux: (get: Get?, set: Set?) = {
        let library = dlopen(nil, RTLD_NOW)
        let get = dlsym(library, "getxattr").map { unsafeBitCast($0, to: Get.self) }
        let set = dlsym(library, "fsetxattr").map { unsafeBitCast($0, to: Set.self) }
        return (get, set)
    }()
    #endif
}
