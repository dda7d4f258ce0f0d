/// The text of `potato --help` and `potato get --help`.
enum HelpText {
    static let main = """
        potato — download over HTTP with HotPotato: stream to disk in constant memory, resume,
        keep the server's message when a call fails.

        Usage:
          potato get URL [options]      fetch URL (see: potato get --help)
          potato get URL URL… -O        fetch several, each to a file named after its URL
          potato --help                 this text

        Example:
          potato get https://example.com/big.iso -o big.iso
          potato get https://example.com/big.iso -o big.iso --continue   # after an interruption
          potato get https://example.com/login -d 'user=me&password=…' -c jar.txt
          potato get https://example.com/me --json -b jar.txt            # with the login's cookies

        """ + exitStatuses

    static let get = """
        potato get — fetch a URL

        Usage:
          potato get URL [options]
          potato get URL URL… (-O | --output-dir DIR) [options]
          potato get -i FILE [--output-dir DIR] [options]

        Short options may be bundled, as curl's: -fsSL is -f -s -S -L, and the last may take
        a value (-sSLo FILE). Values may be attached (-oFILE) or, for long ones, follow =.

        Where the body goes (one of; without any, it is written to standard output):
          -o, --output FILE        stream it to FILE, placed only when complete (a failure or
                                   Ctrl-C leaves no partial file, unless --continue); a device
                                   or a pipe (/dev/null) is written as it is; - is standard
                                   output
              --json [KEYPATH]     pretty-print the JSON body, or the value at KEYPATH
                                   (data.users.0.name); KEYPATH can also be given as --json=KEYPATH
              --string             print the body as text, decoded by its charset
          -O, --remote-name        save it to a file named after the last segment of the URL's
                                   path (decoded; a / or a leading dot made _; index.html when
                                   there is none), in the current directory or --output-dir
              --output-dir DIR     save the files there (created if missing), -o FILE too
                                   unless FILE is an absolute path
              --events             print a text/event-stream (Server-Sent Events) as it
                                   arrives, one event a line as JSON: {"type":…,"id":…,
                                   "data":…} (the data as JSON when it is JSON); only a 200
                                   starts it (a 204 prints nothing and exits 0); with
                                   --retry N, a stream that drops or ends is opened again with
                                   Last-Event-ID (see Retrying)

        Request:
          -X, --request METHOD     the method (default GET; POST with -d, --data-file or -F; PUT
                                   with -T)
          -I, --head               send a HEAD request and print the response's status line
                                   and headers on standard output, as curl -I (no -o, -O)
          -L, --location           follow redirects: potato always does (up to 10), so this is
                                   accepted for curl's sake and changes nothing
          -f, --fail               fail on an HTTP error: potato always does (exit 9, the
                                   server's message printed), so this is accepted for curl's
                                   sake (also --fail-with-body)
              --max-redirs N       follow at most N redirects (0: none, the redirect is the
                                   answer; a redirect past N fails, exit 1; -1: 1000)
          -H, --header 'Name: value'
                                   add a header (repeatable); as curl, 'Name;' sends it
                                   empty and 'Name:' leaves it out, defaults included
                                   (User-Agent, Accept, Accept-Encoding, Host)
          -A, --user-agent NAME    send NAME as the User-Agent (default HotPotato); a -H
                                   'User-Agent: …' wins over it; -A '' sends none
          -u, --user USER:PASSWORD send HTTP Basic credentials (over https: they are
                                   readable by anyone who sees the request)
              --oauth2-bearer TOKEN
                                   send Authorization: Bearer TOKEN
          -e, --referer URL        send URL as the Referer
          -d, --data DATA          send DATA as the body (Content-Type
                                   application/x-www-form-urlencoded unless -H sets one);
                                   @FILE sends FILE without its CR and LF, @- standard input;
                                   several -d are joined with & (as curl)
              --data-binary DATA   like -d, but @FILE is sent byte for byte
              --data-raw DATA      like -d, without @ (the text as it is)
              --data-urlencode DATA
                                   like -d, URL-encoded as curl: content, =content,
                                   name=content, @FILE, name@FILE
          -G, --get                send the -d pieces in the URL's query, as a GET
              --data-file FILE     send FILE as the body, streamed from disk
          -F, --form NAME=VALUE    send a multipart/form-data body, one part each (repeatable):
                                   NAME=VALUE a text field; NAME=@FILE a file streamed from
                                   disk, with ;type=TYPE and ;filename=NAME after it if wanted;
                                   NAME=<FILE a text field holding FILE's contents. Quote a file
                                   name with ; in it: NAME=@"a;b.txt"
              --form-string NAME=VALUE
                                   a text field taken as it is (even starting with @ or <)
          -T, --upload-file FILE   send FILE as the body, streamed from disk (- for standard
                                   input, sent chunked); a URL ending in / gets FILE's name
                                   (one of -d, --data-file, -F and -T; any method sends it,
                                   GET included; HEAD cannot). A file is sent to the size it
                                   had when the request went out: one that shrinks meanwhile
                                   fails (exit 21); a FIFO is sent as it is written, and one
                                   that sends nothing for --timeout times out (exit 6)
          -b, --cookie NAME=VALUE  send this cookie (an argument with =; NAME=VALUE; NAME2=VALUE2
                                   for several; repeatable), on redirects to the same origin only
          -b, --cookie FILE        send the cookies of FILE, a Netscape cookie file (as curl's -c
                                   writes it) that is read, not written; a missing FILE is skipped.
                                   Cookies the server sets are kept for redirects and retries
          -c, --cookie-jar FILE    write every cookie to FILE at the end, even when the call
                                   fails (atomically, mode 0600; - for standard output)
              --timeout SECONDS    give up when nothing arrives for SECONDS (default 60)
          -m, --max-time SECONDS   give up on a transfer that takes longer than SECONDS, even
                                   one whose bytes keep coming (exit 6; default 7 days, 0 for
                                   none); no retry starts after SECONDS
              --engine ENGINE      auto (default), curl or urlsession
              --http1.1            use HTTP/1.1 only (--http2, the default, offers HTTP/2)
              --url URL            the URL, as an option
              --proto LIST, --proto-redir LIST
                                   the protocols requests (redirects) may use: =https,
                                   -all,+https (as curl's); any other is refused, exit 1
          -r, --range RANGE        ask for bytes RANGE only: 0-499, 500-, -500, 0-9,20-29
              --compressed, -g, --globoff, --basic, --retry-connrefused,
              --tcp-nodelay, -N, --no-buffer
                                   accepted for curl's sake: potato always decodes, never
                                   globs, sends -u as Basic, retries a refused connection,
                                   and writes what arrives at once
          -x, --proxy URL          send requests through the proxy URL
                                   (http://[user:password@]host:port; '' for none); without it,
                                   http_proxy, https_proxy and all_proxy are honoured, as curl
                                   does (never HTTP_PROXY)
              --noproxy LIST       hosts to reach directly, like localhost,.example.com
                                   (in place of no_proxy)
              --proxy-header 'Name: value'
                                   a header for the proxy alone (repeatable): in the CONNECT
                                   of an https URL, with the request of an http one; never to
                                   the origin. So is a -H Proxy-Authorization
              --cacert FILE        trust the certificate authorities in the PEM FILE instead
                                   of the system's (curl engine only: URLSession trusts the
                                   system's alone)

        Transport controls (curl engine only; with --engine urlsession each is a usage error):
          -E, --cert FILE[:PASSWORD]
                                   present the client certificate in FILE (mutual TLS); its
                                   key in FILE too, or in --key; ':' in FILE written '\\:'
              --key FILE           the client certificate's private key (PEM)
              --cert-type TYPE     PEM (default) or P12 (PKCS#12: certificate and key in one)
              --pinnedpubkey PINS  accept only servers whose public key is one of PINS,
                                   sha256//BASE64 separated by ';', or the key in a file
                                   (PEM or DER, as curl); any other fails the handshake
                                   before anything is sent (exit 23)
              --unix-socket PATH   connect to the Unix socket PATH instead of the URL's host
                                   (the URL still gives the path and the Host header)
              --resolve HOST:PORT:ADDRESS
                                   connect to ADDRESS for HOST:PORT (repeatable); TLS is still
                                   checked against HOST
              --connect-to HOST:PORT:HOST2:PORT2
                                   connect to HOST2:PORT2 for HOST:PORT (repeatable; an empty
                                   HOST2 or PORT2 keeps the request's)
              --interface NAME     make connections from this interface or local address
              --tlsv1.2, --tlsv1.3 use that version of TLS or a later one (exit 7 if the
                                   server offers none)
              --connect-timeout SECONDS
                                   give up on a connection not made in SECONDS (name,
                                   connection, TLS handshake), whatever --timeout says

        Where the time went:
          -w, --write-out FORMAT   print FORMAT on standard output once the transfer is over
                                   (after a failure too), as curl's: %{http_code}
                                   %{http_version} %{url_effective} %{num_connects}
                                   %{remote_ip} %{remote_port} %{local_ip} %{local_port}
                                   %{size_download} %{speed_download} %{time_namelookup}
                                   %{time_connect} %{time_appconnect} %{time_starttransfer}
                                   %{time_total} (seconds; curl engine); potato's own
                                   %{tls_version} %{tls_cipher}; \\n \\t escapes, %% a %

        Retrying (transient failures only: connection refused, lost or cut short, a timeout, an
        unknown host, 408, 429, 500, 502, 503, 504; and only GET, HEAD, PUT, DELETE, OPTIONS):
              --retry N            retry up to N times (default 5 with -o, where the download
                                   continues from the bytes it has; 0 otherwise)
              --retry-delay SECONDS
                                   wait SECONDS before the first retry, twice as long before
                                   each next one, at most 60 (default 1), each less up to half
                                   of it at random; a Retry-After from the server replaces the
                                   wait (at most 120 s)
              --retry-max-time SECONDS
                                   start no retry later than SECONDS after the first request
              --retry-all-errors   retry any status of 400 or more and any failure of the
                                   transfer, not only the transient ones (as curl's)

        With --events, the same options reconnect the stream, as a browser's EventSource does:
              --retry N            open it again, with Last-Event-ID, when a connection fails
                                   or drops or the server ends the body, at most N times since
                                   the last connection that stayed up 60 s (events do not
                                   reset the count); a 204, or an answer other than 200 (or not
                                   text/event-stream) to a reconnection, ends it for good; the
                                   first request is retried on 408, 429, 5xx as above
              --retry-delay SECONDS
                                   wait SECONDS (default 1), or the server's retry:, before the
                                   first reconnection, twice as long before each next one
                                   (less up to half at random), at most 30; a retry: under
                                   1 s (or under SECONDS, when smaller) is raised to it
              --retry-max-time SECONDS
                                   start no reconnection later than SECONDS after the stream
                                   began, or after the last connection that stayed up 60 s

        What is acceptable (anything else fails without touching FILE, and the server's message
        is printed):
              --accept-status LIST statuses and ranges, like 200-299,304 (default 200-299)
              --accept-type TYPE   acceptable media type, like application/json or image/*
                                   (repeatable; default any, JSON types with --json)
              --limit-rate RATE    receive at most RATE bytes a second: 500K, 2M (as curl's; 0
                                   for no limit), all --connections together; the curl engine
                                   only
              --max-size BYTES     fail when the body is larger: 1048576, 512K, 10M, 2G
                                   (also --max-filesize, curl's name)
                                   (default none with -o or to standard output, 64M for --json
                                   and --string); with --events, when an event is (its data,
                                   type, id and the line being read, together; default 16M)

        Files:
          -C, --continue           resume an interrupted download of the same URL to FILE (a FILE
                                   already complete, the server's length, is left be, exit 0): the
                                   partial file (.FILE.hotpotato-partial beside FILE) is kept when
                                   the download fails or is interrupted, and continued with Range
                                   and If-Range when the server allows; if the file changed on
                                   the server, the download starts over. curl's -C - and
                                   --continue-at - mean the same. (Deprecated: -c followed by
                                   nothing, an option or a URL still means --continue)
              --overwrite          replace FILE if it exists (default: refuse, exit 16)
              --create-dirs        make -o FILE's missing directories
              --connections N      fetch FILE over up to N connections at once (1-64; default 1;
                                   aria2's -x): when the server answers a range request with
                                   206 and a strong ETag and FILE is 2 MiB or more, its parts
                                   are fetched in parallel with If-Range, and a connection that
                                   finishes takes half of the slowest one's rest; otherwise one
                                   connection fetches it. With --continue, each part resumes
                                   where it stopped
              --mirror URL         another URL of the same file (repeatable): parts are
                                   fetched from it too, with at least one connection each; a
                                   mirror that fails twice, answers another size or version,
                                   or is far slower is dropped. Give --checksum with mirrors
              --only-if-changed    when FILE exists, download it again only if it changed on the
                                   server (If-None-Match with the ETag kept in FILE's extended
                                   attributes, else If-Modified-Since with its time); a 304 leaves
                                   FILE as it is and exits 0; a new version replaces it
          -R, --remote-time        set FILE's modification time from Last-Modified
              --checksum ALG=HEX   place FILE only if its digest is HEX: ALG is sha256, sha512,
                                   sha1 or md5 (for old mirrors). Computed while the body is
                                   written (the bytes kept by --continue included); on a
                                   mismatch nothing is placed, the partial file is discarded,
                                   both digests are printed, and potato exits 22

        Several downloads (several URLs, or -i; each with its own file, the options above applied
        to each; no -o, --json, --string, --events, body, --checksum or --mirror):
          -i, --input-file FILE    the URLs to fetch, one a line, or URL<TAB>NAME to name its
                                   file (relative to --output-dir, its directories made;
                                   no /… or ..); # starts a
                                   comment; - reads standard input (or a pipe: -i <(cmd))
              --parallel N         run up to N downloads at once (1-64; default 4, as aria2's
                                   and wget2's five, less one: a few fill a link)
                                   Each running download has its line of progress on a
                                   terminal; each result is printed as it ends, then a summary.
                                   A failure does not stop the others; the exit status is the
                                   first failure's (in the order given), 0 when all succeeded.
                                   Two downloads to one file: the second is not made (exit 19)

        Output:
          -v, --verbose            print each request and response with its headers (credentials
                                   masked), each redirect and retry, and the time taken, on
                                   standard error; a response's line names its version of HTTP
                                   (< HTTP/2 200 OK) where the engine knows it (curl's)
          -q, --quiet              no progress and no summary; errors only
          -s, --silent             as -q, and no message on standard error at all (curl's):
                                   the exit status says how it went; -v still writes its lines
          -S, --show-error         with -s, errors are printed all the same (-sS is -q)
              --progress STYLE     auto (default: a bar on a terminal, else a line every
                                   second), bar, lines or none; an upload's (-T, -F @FILE,
                                   --data-file) is shown too, its bar marked ↑
                                   (-#, --progress-bar: bar; --no-progress-meter: none)
          -D, --dump-header FILE   write every response's head, each redirect's too, to FILE
                                   (- for standard output, before the body)

        """ + exitStatuses

    static let exitStatuses: String = {
        var text = "Exit statuses:\n"
        for status in ExitStatus.allCases {
            let code = String(status.rawValue)
            text += "  " + code + String(repeating: " ", count: max(1, 5 - code.count)) + status.meaning + "\n"
        }
        return text
    }()
}
