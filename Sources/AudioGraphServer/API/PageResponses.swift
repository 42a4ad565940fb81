extension WebPage {
    /// The page's files with a Content-Security-Policy that allows only this origin's own scripts, styles and
    /// fetches (no inline script, no CDN, no framing).
    static func response(for path: String) -> HTTPResponse {
        guard let asset = asset(path: path) else { return .error(.notFound("no such path")) }
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", asset.contentType),
            ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
            ("X-Frame-Options", "DENY"),
            ("Cache-Control", "no-cache"),
        ], body: .bytes(Array(asset.body.utf8)))
    }
}
