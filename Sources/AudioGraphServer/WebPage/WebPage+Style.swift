extension WebPage {
    /// `GET /app.css`: the page's style (no inline styles: the Content-Security-Policy forbids them).
    static let appCSS = #"""
    :root {
      color-scheme: light;
      --ink: #1d232a;
      --muted: #6b7480;
      --line: #d8dde3;
      --accent: #1f6feb;
      --error: #b42318;
      --panel: #f6f8fa;
      font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
      font-size: 15px;
      color: var(--ink);
      background: #fff;
    }

    [hidden] { display: none !important; }

    body { margin: 0 auto; max-width: 1100px; padding: 12px 20px 40px; }

    header { display: flex; align-items: center; justify-content: space-between; border-bottom: 1px solid var(--line); }
    h1 { font-size: 1.4rem; margin: 8px 0; }
    h2 { font-size: 1.1rem; margin: 12px 0 8px; }
    h3 { font-size: 1rem; margin: 16px 0 6px; color: var(--muted); }

    #status { min-height: 1.4em; margin: 8px 0; padding: 4px 8px; border-radius: 4px; }
    #status:empty { visibility: hidden; }
    #status[data-kind="error"] { color: var(--error); background: #fef3f2; }
    #status[data-kind="info"] { color: var(--muted); }

    #login-form { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
    #token { flex: 1 1 280px; max-width: 420px; padding: 6px 8px; font: inherit; }
    .hint { color: var(--muted); font-size: 0.9rem; }

    button { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 4px; background: #fff;
             cursor: pointer; }
    button:hover:not(:disabled) { border-color: var(--accent); }
    button:disabled { color: var(--muted); cursor: default; }
    button.selected { border-color: var(--accent); background: #eef4ff; }

    #app-view { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; }
    @media (max-width: 760px) { #app-view { grid-template-columns: minmax(0, 1fr); } }

    .bar { display: flex; align-items: center; justify-content: space-between; }

    ul.choices { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
    ul.choices button { width: 100%; text-align: left; }
    li.empty { color: var(--muted); font-style: italic; }

    .pager { display: flex; gap: 8px; align-items: center; margin-top: 6px; }
    .pager span { color: var(--muted); }

    #captions { min-height: 8em; max-height: 420px; overflow-y: auto; padding: 8px 12px; background: var(--panel);
                border: 1px solid var(--line); border-radius: 6px; }
    #captions[data-state="ended"], #captions[data-state="closed"] { opacity: 0.8; }
    #captions:empty::before, #transcripts:empty::before, #utterances:empty::before { color: var(--muted); font-style: italic; }
    #captions[data-state="idle"]:empty::before { content: "Pick a live session to watch its captions."; }
    #captions[data-state="connecting"]:empty::before, #captions[data-state="streaming"]:empty::before { content: "Waiting for captions…"; }
    #transcripts:empty::before { content: "Pick a stored session."; }
    #utterances:empty::before { content: "Pick a transcript."; }
    .caption { margin: 4px 0; line-height: 1.4; }
    .caption .time { color: var(--muted); font-variant-numeric: tabular-nums; font-size: 0.85em; font-style: normal; }
    .controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
    .caption.partial { color: var(--muted); font-style: italic; }
    .caption.final { color: var(--ink); font-weight: 500; }

    #utterances { margin: 0; padding-left: 1.6em; }
    .utterance { margin: 3px 0; }
    .utterance .time { color: var(--muted); font-variant-numeric: tabular-nums; font-size: 0.85rem; margin-right: 6px; }

    """#
}
