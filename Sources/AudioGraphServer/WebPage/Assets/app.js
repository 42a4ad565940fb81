// audiograph web page: live captions and stored transcripts (docs/http-api.md).
// The token lives in memory and sessionStorage and goes only into an Authorization header, never a URL.
'use strict';

const TOKEN_KEY = 'audiograph.token';
const PAGE_LIMIT = 10;
const MAX_CAPTIONS = 200;
const NOT_A_PARTICIPANT = 'You are not a participant in any session; sessions list participants in '
  + 'session.participants (default: the user who ran the pipeline).';

const $ = (id) => document.getElementById(id);

const state = {
  token: null,
  callsPage: 1,
  transcriptsSession: null,
  transcriptsPage: 1,
  stream: null,          // the AbortController of the caption stream being read
  segments: new Map(),   // segment number (string) -> its .caption element
  requests: { live: 0, calls: 0, transcripts: 0, utterances: 0 },
};

// MARK: errors and the status line

class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function setStatus(text, kind = 'info') {
  const status = $('status');
  status.textContent = text;
  status.dataset.kind = kind;
}

function describe(error) {
  if (error instanceof APIError) {
    return (error.status ? error.status + ' ' : '') + error.code + ': ' + error.message;
  }
  return String((error && error.message) || error);
}

// Shows an error; a 401 also forgets the token and goes back to the login form.
function fail(error) {
  if (error && error.name === 'AbortError') return;
  setStatus(describe(error), 'error');
  if (error instanceof APIError && error.status === 401) logout({ keepStatus: true });
}

async function errorFrom(response) {
  let code = 'http_' + response.status;
  let message = response.statusText || 'the request failed';
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch (ignored) {
    // not JSON: keep the HTTP status text
  }
  return new APIError(response.status, code, message);
}

// GET path (or POST body as JSON) with the token. Answers the parsed JSON, or the Response itself when raw
// is set.
async function api(path, { signal, raw = false, accept = 'application/json', body } = {}) {
  if (!state.token) throw new APIError(401, 'missing_token', 'log in first');
  let response;
  const headers = { 'Authorization': 'Bearer ' + state.token, 'Accept': accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  try {
    response = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      signal,
    });
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    throw new APIError(0, 'network', 'cannot reach the server (' + describe(error) + ')');
  }
  if (!response.ok) throw await errorFrom(response);
  return raw ? response : response.json();
}

// MARK: login

function showView(view) {
  document.body.dataset.view = view;
  $('login-view').hidden = view !== 'login';
  $('app-view').hidden = view !== 'app';
  $('logout').hidden = view !== 'app';
}

async function login(token) {
  state.token = token;
  setStatus('Logging in…');
  let live;
  try {
    live = await api('/v1/live');
  } catch (error) {
    state.token = null;
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (ignored) { /* storage off */ }
    fail(error);
    return;
  }
  try { sessionStorage.setItem(TOKEN_KEY, token); } catch (ignored) { /* storage off: memory only */ }
  showView('app');
  setStatus('Logged in.');
  renderLive(live);
  loadCalls(1);
}

function logout({ keepStatus = false } = {}) {
  stopStream();
  state.token = null;
  try { sessionStorage.removeItem(TOKEN_KEY); } catch (ignored) { /* storage off */ }
  for (const key of Object.keys(state.requests)) state.requests[key] += 1;  // drop answers in flight
  for (const id of ['live-sessions', 'calls', 'transcripts', 'utterances']) resetList($(id));
  clearCaptions();
  clearControls();
  $('captions').dataset.state = 'idle';
  delete $('captions').dataset.session;
  showView('login');
  if (!keepStatus) setStatus('Logged out.');
  $('token').focus();
}

// MARK: lists

function resetList(list) {
  list.replaceChildren();
  list.dataset.state = 'idle';
  list.dataset.count = '0';
}

function choice(className, label, data, onChoose) {
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = className;
  for (const [key, value] of Object.entries(data)) button.dataset[key] = value;
  button.textContent = label;
  button.addEventListener('click', () => {
    for (const other of item.parentElement.querySelectorAll('button.selected')) other.classList.remove('selected');
    button.classList.add('selected');
    onChoose();
  });
  item.append(button);
  return item;
}

function emptyItem(text) {
  const item = document.createElement('li');
  item.className = 'empty';
  item.textContent = text;
  return item;
}

function formatTime(seconds) {
  if (typeof seconds !== 'number' || !isFinite(seconds)) return '';
  return new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

function formatOffset(seconds) {
  if (typeof seconds !== 'number' || !isFinite(seconds)) return '?';
  const minutes = Math.floor(seconds / 60);
  const rest = (seconds - minutes * 60).toFixed(1).padStart(4, '0');
  return minutes + ':' + rest;
}

// MARK: live sessions and captions

async function loadLive() {
  const request = ++state.requests.live;
  $('live-sessions').dataset.state = 'loading';
  try {
    const answer = await api('/v1/live');
    if (request === state.requests.live) renderLive(answer);
  } catch (error) {
    if (request === state.requests.live) $('live-sessions').dataset.state = 'error';
    fail(error);
  }
}

function renderLive(answer) {
  const list = $('live-sessions');
  const sessions = (answer && Array.isArray(answer.sessions)) ? answer.sessions : [];
  list.replaceChildren(...sessions.map((session) => {
    const label = session.room && session.room !== session.id ? session.room + ' (' + session.id + ')' : session.id;
    const item = choice('live-session', label, { session: session.id }, () => watch(session.id));
    if (session.id === $('captions').dataset.session) item.firstChild.classList.add('selected');
    return item;
  }));
  if (sessions.length === 0) list.append(emptyItem('No live sessions.'));
  list.dataset.count = String(sessions.length);
  list.dataset.state = 'ready';
}

function stopStream() {
  if (state.stream) {
    state.stream.abort();
    state.stream = null;
  }
}

function clearCaptions() {
  $('captions').replaceChildren();
  state.segments.clear();
}

// MARK: steering (only the controls the session shows exist on the page)

function controlButton(id, label, onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.id = id;
  button.textContent = label;
  button.addEventListener('click', onClick);
  return button;
}

function renderControls(session, id) {
  const box = $('session-controls');
  const controls = session.controls || {};
  const items = [];
  if (controls.transcription) {
    items.push(controlButton('toggle-transcription', session.transcribing ? 'Stop Transcription' : 'Start Transcription',
      () => steer(id, 'transcription', { action: session.transcribing ? 'stop' : 'start' })));
  }
  if (controls.captions) {
    items.push(controlButton('toggle-captions', session.captions ? 'Hide Captions' : 'Show Captions',
      () => steer(id, 'captions', { visible: !session.captions })));
  }
  const languages = Array.isArray(session.languages) ? session.languages : [];
  if (controls.language && languages.length > 0) {
    const label = document.createElement('label');
    label.htmlFor = 'caption-language';
    label.textContent = 'Caption language';
    const picker = document.createElement('select');
    picker.id = 'caption-language';
    for (const code of languages) {
      const option = document.createElement('option');
      option.value = code;
      option.textContent = code;
      picker.append(option);
    }
    picker.value = session.captionLanguage;
    picker.addEventListener('change', () => steer(id, 'language', { language: picker.value }));
    items.push(label, picker);
  }
  box.replaceChildren(...items);
  box.hidden = items.length === 0;
  box.dataset.transcribing = String(Boolean(session.transcribing));
  box.dataset.captions = String(Boolean(session.captions));
  box.dataset.language = session.captionLanguage || '';
}

// The live level meter, for a pipeline with a level-meter (levels come at most 10 times a second).
function showLevel(reading) {
  const meter = $('level-meter');
  if (typeof reading.level !== 'number' || !isFinite(reading.level)) return;
  meter.value = Math.max(0, Math.min(1, reading.level));
  meter.dataset.time = String(reading.time);
  meter.hidden = false;
  $('level-label').hidden = false;
}

function clearLevel() {
  $('level-meter').hidden = true;
  $('level-label').hidden = true;
  $('level-meter').value = 0;
  delete $('level-meter').dataset.time;
}

function clearControls() {
  clearLevel();
  const box = $('session-controls');
  box.replaceChildren();
  box.hidden = true;
  for (const key of ['transcribing', 'captions', 'language']) delete box.dataset[key];
}

// The answer and every viewer's buttons come from the state event the server pushes after the change.
async function steer(id, route, body) {
  try {
    await api('/v1/sessions/' + encodeURIComponent(id) + '/' + route, { body });
  } catch (error) {
    fail(error);
  }
}

// A partial replaces its segment's text in place (same element, same text node); a final fixes it.
function applyCaption(caption) {
  const box = $('captions');
  if (caption.type === 'clear') {
    clearCaptions();
    return;
  }
  if (caption.type !== 'partial' && caption.type !== 'final') return;
  const key = String(caption.segment);
  let element = state.segments.get(key);
  const revision = typeof caption.revision === 'number' ? caption.revision : null;
  if (element && revision !== null && element.dataset.revision !== ''
      && Number(element.dataset.revision) > revision) {
    return;  // older than what is shown
  }
  if (!element) {
    element = document.createElement('p');
    element.dataset.segment = key;
    const time = document.createElement('span');
    time.className = 'time';
    const words = document.createElement('span');
    words.className = 'text';
    words.append(document.createTextNode(''));
    element.append(time, ' ', words);
    box.append(element);
    state.segments.set(key, element);
    while (box.children.length > MAX_CAPTIONS) {
      const oldest = box.firstElementChild;
      state.segments.delete(oldest.dataset.segment);
      oldest.remove();
    }
  }
  element.className = 'caption ' + caption.type;
  element.dataset.revision = revision === null ? '' : String(revision);
  const text = typeof caption.text === 'string' ? caption.text : '';
  element.querySelector('.time').textContent = formatOffset(caption.start);
  element.querySelector('.text').firstChild.data = text;
  box.scrollTop = box.scrollHeight;
}

// Server-Sent Events framing (the WHATWG EventSource parsing rules), fed text as it arrives: lines end in
// CRLF, LF or CR (a CRLF may be split across chunks), ':' starts a comment, a blank line dispatches.
class SSEParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buffer = '';
    this.skipLF = false;
    this.eventType = '';
    this.data = [];
    this.lastEventId = '';
  }

  push(chunk) {
    let text = chunk;
    if (this.skipLF && text.length > 0) {
      this.skipLF = false;
      if (text[0] === '\n') text = text.slice(1);
    }
    const buffer = this.buffer + text;
    let start = 0;
    for (let index = 0; index < buffer.length; index++) {
      const character = buffer[index];
      if (character !== '\n' && character !== '\r') continue;
      this.line(buffer.slice(start, index));
      if (character === '\r') {
        if (index + 1 < buffer.length) {
          if (buffer[index + 1] === '\n') index++;
        } else {
          this.skipLF = true;
        }
      }
      start = index + 1;
    }
    this.buffer = buffer.slice(start);
  }

  line(line) {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line[0] === ':') return;
    const colon = line.indexOf(':');
    let field = line;
    let value = '';
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value[0] === ' ') value = value.slice(1);
    }
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
  }

  dispatch() {
    const type = this.eventType || 'message';
    const data = this.data;
    this.eventType = '';
    this.data = [];
    if (data.length === 0) return;
    this.onEvent({ type, data: data.join('\n'), id: this.lastEventId });
  }
}

async function watch(id) {
  stopStream();
  const controller = new AbortController();
  state.stream = controller;
  const box = $('captions');
  clearCaptions();
  clearControls();
  box.dataset.session = id;
  box.dataset.state = 'connecting';
  $('captions-title').textContent = 'Captions of ' + id;
  const current = () => state.stream === controller;
  const parser = new SSEParser((event) => {
    if (!current()) return;
    if (event.type === 'caption') {
      let caption;
      try {
        caption = JSON.parse(event.data);
      } catch (error) {
        setStatus('a caption that is not JSON: ' + describe(error), 'error');
        return;
      }
      applyCaption(caption);
    } else if (event.type === 'level') {
      try {
        showLevel(JSON.parse(event.data));
      } catch (error) {
        setStatus('a level event that is not JSON: ' + describe(error), 'error');
      }
    } else if (event.type === 'state') {
      try {
        renderControls(JSON.parse(event.data), id);
      } catch (error) {
        setStatus('a state event that is not JSON: ' + describe(error), 'error');
      }
    } else if (event.type === 'end') {
      box.dataset.state = 'ended';
      clearControls();
      setStatus('The session ' + id + ' ended.');
      // What it stored is in the stored list now; it is no longer live.
      loadCalls(state.callsPage);
      loadLive();
    }
  });
  try {
    const response = await api('/v1/sessions/' + encodeURIComponent(id) + '/captions',
                               { signal: controller.signal, raw: true, accept: 'text/event-stream' });
    if (!current()) return;
    box.dataset.state = 'streaming';
    setStatus('Watching ' + id + '.');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
    if (current() && box.dataset.state !== 'ended') {
      box.dataset.state = 'closed';
      setStatus('The caption stream of ' + id + ' closed.');
    }
  } catch (error) {
    if (!current()) return;
    box.dataset.state = 'error';
    fail(error);
  } finally {
    if (current()) state.stream = null;
  }
}

// MARK: stored sessions, transcripts, utterances

function setPager(prefix, page, hasNext) {
  $(prefix + '-page').textContent = 'Page ' + page;
  $(prefix + '-prev').disabled = page <= 1;
  $(prefix + '-next').disabled = !hasNext;
}

async function loadCalls(page) {
  const request = ++state.requests.calls;
  const list = $('calls');
  list.dataset.state = 'loading';
  try {
    const answer = await api('/v1/calls?hasTranscriptions=true&page=' + page + '&limit=' + PAGE_LIMIT);
    if (request !== state.requests.calls) return;
    const calls = Array.isArray(answer.calls) ? answer.calls : [];
    state.callsPage = page;
    list.replaceChildren(...calls.map((call) => {
      const count = Array.isArray(call.transcripts) ? call.transcripts.length : 0;
      const parts = [call.roomName || call.mid, call.mid, formatTime(call.startTime),
                     count + (count === 1 ? ' transcript' : ' transcripts')];
      const item = choice('call', parts.filter((part) => part).join(' · '), { session: call.mid },
                          () => loadTranscripts(call.mid, 1));
      if (call.mid === state.transcriptsSession) item.firstChild.classList.add('selected');
      return item;
    }));
    // Nothing stored and nothing live: the user takes part in nothing, and the page says why.
    const nothingLive = $('live-sessions').dataset.count === '0';
    if (calls.length === 0) {
      list.append(emptyItem(page > 1 ? 'No more sessions.' : nothingLive ? NOT_A_PARTICIPANT : 'No stored sessions yet.'));
    }
    list.dataset.page = String(page);
    list.dataset.count = String(calls.length);
    list.dataset.state = 'ready';
    setPager('calls', page, calls.length >= PAGE_LIMIT && answer.nextCursor != null);
  } catch (error) {
    if (request === state.requests.calls) list.dataset.state = 'error';
    fail(error);
  }
}

async function loadTranscripts(sessionId, page) {
  const request = ++state.requests.transcripts;
  const list = $('transcripts');
  list.dataset.state = 'loading';
  if (sessionId !== state.transcriptsSession) {
    ++state.requests.utterances;
    resetList($('utterances'));
  }
  try {
    const answer = await api('/v1/sessions/' + encodeURIComponent(sessionId) + '/transcripts?page=' + page
                             + '&limit=' + PAGE_LIMIT);
    if (request !== state.requests.transcripts) return;
    const transcripts = Array.isArray(answer.transcripts) ? answer.transcripts : [];
    state.transcriptsSession = sessionId;
    state.transcriptsPage = page;
    $('transcripts-title').textContent = 'Transcripts of ' + sessionId;
    list.replaceChildren(...transcripts.map((transcript) => {
      const label = (transcript.transcriptDate || formatTime(transcript.startTime) || transcript.tid)
        + (transcript.roomName ? ' · ' + transcript.roomName : '');
      const item = choice('transcript', label, { transcript: transcript.tid },
                          () => showTranscript(transcript.tid));
      if (transcript.tid === $('utterances').dataset.transcript) item.firstChild.classList.add('selected');
      return item;
    }));
    if (transcripts.length === 0) list.append(emptyItem(page > 1 ? 'No more transcripts.' : 'No transcripts.'));
    list.dataset.session = sessionId;
    list.dataset.page = String(page);
    list.dataset.count = String(transcripts.length);
    list.dataset.state = 'ready';
    setPager('transcripts', page, transcripts.length >= PAGE_LIMIT && answer.nextCursor != null);
  } catch (error) {
    if (request === state.requests.transcripts) list.dataset.state = 'error';
    fail(error);
  }
}

async function showTranscript(tid) {
  const request = ++state.requests.utterances;
  const list = $('utterances');
  list.dataset.state = 'loading';
  try {
    const transcript = await api('/v1/transcripts/' + encodeURIComponent(tid));
    if (request !== state.requests.utterances) return;
    const utterances = Array.isArray(transcript.utterances) ? transcript.utterances : [];
    $('utterances-title').textContent = 'Utterances of ' + (transcript.transcriptDate || tid)
      + (transcript.language ? ' (' + transcript.language + ')' : '');
    list.replaceChildren(...utterances.map((utterance) => {
      const item = document.createElement('li');
      item.className = 'utterance';
      item.dataset.segment = String(utterance.segment);
      const time = document.createElement('span');
      time.className = 'time';
      time.textContent = formatOffset(utterance.start) + '–' + formatOffset(utterance.end);
      const text = document.createElement('span');
      text.className = 'text';
      text.textContent = utterance.text || '';
      item.append(time, ' ', text);
      return item;
    }));
    if (utterances.length === 0) list.append(emptyItem('No utterances.'));
    renderDownloads(tid);
    list.dataset.transcript = tid;
    list.dataset.count = String(utterances.length);
    list.dataset.state = 'ready';
  } catch (error) {
    if (request === state.requests.utterances) list.dataset.state = 'error';
    fail(error);
  }
}

// Downloads go through fetch (the token stays in a header) and a blob URL the browser saves.
function renderDownloads(tid) {
  const box = $('downloads');
  box.replaceChildren(...[['srt', 'SRT'], ['vtt', 'WebVTT'], ['json', 'JSON']].map(([extension, label]) => {
    const button = controlButton('download-' + extension, 'Download ' + label, () => download(tid, extension));
    button.className = 'download';
    button.dataset.format = extension;
    return button;
  }));
  box.hidden = false;
}

async function download(tid, extension) {
  try {
    const response = await api('/v1/transcripts/' + encodeURIComponent(tid) + '.' + extension, { raw: true, accept: '*/*' });
    const blob = await response.blob();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = tid + '.' + extension;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    setStatus('Downloaded ' + link.download + '.');
  } catch (error) {
    fail(error);
  }
}

// MARK: start

function start() {
  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const field = $('token');
    const token = field.value.trim();
    field.value = '';
    if (!token) {
      setStatus('Enter an access token.', 'error');
      return;
    }
    login(token);
  });
  $('logout').addEventListener('click', () => logout());
  $('refresh-live').addEventListener('click', () => loadLive());
  $('refresh-calls').addEventListener('click', () => loadCalls(state.callsPage));
  $('calls-prev').addEventListener('click', () => loadCalls(Math.max(1, state.callsPage - 1)));
  $('calls-next').addEventListener('click', () => loadCalls(state.callsPage + 1));
  $('transcripts-prev').addEventListener('click', () => {
    if (state.transcriptsSession !== null) loadTranscripts(state.transcriptsSession, Math.max(1, state.transcriptsPage - 1));
  });
  $('transcripts-next').addEventListener('click', () => {
    if (state.transcriptsSession !== null) loadTranscripts(state.transcriptsSession, state.transcriptsPage + 1);
  });

  let saved = null;
  try { saved = sessionStorage.getItem(TOKEN_KEY); } catch (ignored) { /* storage off */ }
  if (saved) {
    login(saved);
  } else {
    showView('login');
    $('token').focus();
  }
}

start();
