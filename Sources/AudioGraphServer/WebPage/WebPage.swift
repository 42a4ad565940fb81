/// The web page `audiograph serve` answers at `/`: static HTML, JavaScript and CSS compiled into the binary.
/// No build step, no framework, no outside CDN. The server sends these with a Content-Security-Policy of
/// `default-src 'self'`, so the page has no inline script and no inline style.
///
/// The page logs in with an access token (kept in memory and `sessionStorage`, sent only as an
/// `Authorization: Bearer` header on `fetch()`, never in a URL), lists live sessions (`GET /v1/live`) and streams
/// the captions of one (`GET /v1/sessions/{id}/captions`, SSE read with `fetch()` because `EventSource` cannot
/// send headers), and pages through stored sessions (`GET /v1/calls`), their transcripts
/// (`GET /v1/sessions/{id}/transcripts`) and one transcript's utterances (`GET /v1/transcripts/{tid}`).
/// The element ids the browser tests rely on are listed at the top of `indexHTML`.
enum WebPage {
    /// The page's files by request path: `/` (and `/index.html`), `/app.js`, `/app.css`.
    static func asset(path: String) -> (contentType: String, body: String)? {
        switch path {
        case "/", "/index.html": ("text/html; charset=utf-8", indexHTML)
        case "/app.js": ("text/javascript; charset=utf-8", appJS)
        case "/app.css": ("text/css; charset=utf-8", appCSS)
        default: nil
        }
    }

    /// `GET /`.
    static let indexHTML = #"""
    <!doctype html>
    <!--
      audiograph web page. Stable hooks for tests (keep them when changing the page):
        body[data-view]            "login" or "app"
        #status                    status line; data-kind="info" | "error"; errors read "401 invalid_token: message"
        #login-form, #token, #login    the login form: token field (password type) and its submit button
        #logout                    log out (forgets the token)
        #live-sessions             live sessions; children li > button.live-session[data-session=ID];
                                   data-state="loading" | "ready" | "error", data-count=N
        #refresh-live              reloads the live sessions
        #session-controls          the watched session's controls, only those it shows (absent otherwise):
                                   #toggle-transcription ("Start Transcription" / "Stop Transcription"),
                                   #toggle-captions ("Show Captions" / "Hide Captions"), #caption-language (a select of
                                   the engine's languages); data-transcribing, data-captions, data-language
        #level-meter               the watched session's live level 0…1 (a meter; hidden until a level event);
                                   data-time = the reading's stream time
        #downloads                 the chosen transcript's downloads: button.download[data-format=srt|vtt|json]
        #captions                  captions of the watched session; data-session=ID,
                                   data-state="idle" | "connecting" | "streaming" | "ended" | "closed" | "error";
                                   one p.caption[data-segment=N][data-revision=R] per segment with class
                                   "partial" or "final" (a partial replaces its segment's text in place),
                                   holding span.time (its start, m:ss.s) and span.text
        #calls                     stored sessions, one page; li > button.call[data-session=ID];
                                   data-page=N, data-state, data-count
        #calls-prev, #calls-next, #calls-page        paging of #calls; #refresh-calls reloads the page shown
        #transcripts               the chosen session's transcripts, one page; li > button.transcript[data-transcript=TID];
                                   data-session=ID, data-page=N, data-state, data-count
        #transcripts-prev, #transcripts-next, #transcripts-page    paging of #transcripts
        #utterances                the chosen transcript's utterances: li.utterance[data-segment=N] > .time, .text;
                                   data-transcript=TID, data-state, data-count
    -->
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>audiograph</title>
    <link rel="stylesheet" href="/app.css">
    <script src="/app.js" defer></script>
    </head>
    <body data-view="login">
    <header>
      <h1>audiograph</h1>
      <button id="logout" type="button" hidden>Log out</button>
    </header>
    <p id="status" role="status" aria-live="polite" data-kind="info"></p>

    <section id="login-view" aria-labelledby="login-title">
      <h2 id="login-title">Log in</h2>
      <form id="login-form" autocomplete="off">
        <label for="token">Access token</label>
        <input id="token" type="password" autocomplete="off" spellcheck="false" required>
        <button id="login" type="submit">Log in</button>
      </form>
      <p class="hint">Make a token with <code>audiograph tokens create --user NAME --store STORE</code>, where STORE is
        the store this server serves (<code>serve --store STORE</code>, or the config's transcript store).</p>
    </section>

    <main id="app-view" hidden>
      <section id="live-view" aria-labelledby="live-title">
        <div class="bar">
          <h2 id="live-title">Live sessions</h2>
          <button id="refresh-live" type="button">Refresh</button>
        </div>
        <ul id="live-sessions" class="choices" data-state="idle" data-count="0"></ul>
        <h3 id="captions-title">Captions</h3>
        <div id="session-controls" class="controls" hidden></div>
        <label id="level-label" for="level-meter" hidden>Level</label>
        <meter id="level-meter" min="0" max="1" value="0" hidden></meter>
        <div id="captions" aria-live="polite" data-state="idle"></div>
      </section>

      <section id="stored-view" aria-labelledby="stored-title">
        <div class="bar">
          <h2 id="stored-title">Stored sessions</h2>
          <button id="refresh-calls" type="button">Refresh</button>
        </div>
        <ul id="calls" class="choices" data-state="idle" data-count="0"></ul>
        <nav class="pager" aria-label="stored sessions pages">
          <button id="calls-prev" type="button" disabled>Previous</button>
          <span id="calls-page">Page 1</span>
          <button id="calls-next" type="button" disabled>Next</button>
        </nav>

        <h3 id="transcripts-title">Transcripts</h3>
        <ul id="transcripts" class="choices" data-state="idle" data-count="0"></ul>
        <nav class="pager" aria-label="transcripts pages">
          <button id="transcripts-prev" type="button" disabled>Previous</button>
          <span id="transcripts-page">Page 1</span>
          <button id="transcripts-next" type="button" disabled>Next</button>
        </nav>

        <h3 id="utterances-title">Utterances</h3>
        <ol id="utterances" data-state="idle" data-count="0"></ol>
        <div id="downloads" class="controls" hidden></div>
      </section>
    </main>
    </body>
    </html>

    """#
}
