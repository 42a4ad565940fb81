/// The web page `audiograph serve` answers at `/`: static HTML, JavaScript and CSS, files of their own in
/// `WebPage/Assets/` (checked by `node --check` in the tests) embedded in the binary at build time by SwiftPM
/// (`.embedInCode`). No build step of our own, no framework, no outside CDN. The server sends these with a
/// Content-Security-Policy of `default-src 'self'`, so the page has no inline script and no inline style.
///
/// The page logs in with an access token (kept in memory and `sessionStorage`, sent only as an
/// `Authorization: Bearer` header on `fetch()`, never in a URL), lists live sessions (`GET /v1/live`) and streams
/// the captions of one (`GET /v1/sessions/{id}/captions`, SSE read with `fetch()` because `EventSource` cannot
/// send headers), and pages through stored sessions (`GET /v1/calls`), their transcripts
/// (`GET /v1/sessions/{id}/transcripts`) and one transcript's utterances (`GET /v1/transcripts/{tid}`).
/// The element ids the browser tests rely on are listed at the top of `index.html`.
enum WebPage {
    /// The page's files by request path: `/` (and `/index.html`), `/app.js`, `/app.css`, `/capture-worklet.js`.
    static func asset(path: String) -> (contentType: String, body: String)? {
        switch path {
        case "/", "/index.html": ("text/html; charset=utf-8", indexHTML)
        case "/app.js": ("text/javascript; charset=utf-8", appJS)
        case "/app.css": ("text/css; charset=utf-8", appCSS)
        case "/capture-worklet.js": ("text/javascript; charset=utf-8", captureWorkletJS)
        default: nil
        }
    }

    /// `GET /`: the page; the element ids the browser tests rely on are listed at its top.
    static let indexHTML = String(decoding: PackageResources.index_html, as: UTF8.self)
    /// `GET /app.js`: the page's behaviour, plain modern JavaScript (no framework, no build step).
    static let appJS = String(decoding: PackageResources.app_js, as: UTF8.self)
    /// `GET /app.css`: the page's style (no inline styles: the Content-Security-Policy forbids them).
    static let appCSS = String(decoding: PackageResources.app_css, as: UTF8.self)
    /// `GET /capture-worklet.js`: the AudioWorklet that turns the microphone into 16-bit PCM messages for the
    /// participant audio WebSocket ("Join with microphone").
    static let captureWorkletJS = String(decoding: PackageResources.capture_worklet_js, as: UTF8.self)
}
