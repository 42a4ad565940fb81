// audiograph web page: live captions and stored transcripts (docs/http-api.md).
// The token lives in memory and sessionStorage and goes only into an Authorization header, never a URL.
'use strict';

const TOKEN_KEY = 'audiograph.token';
const PAGE_LIMIT = 10;
const MAX_CAPTIONS = 200;
const STREAM_RECONNECT_ATTEMPTS = 8;  // the caption stream, reopened after 0.5 s doubling to 8 s, plus jitter
const NOT_A_PARTICIPANT = 'You are not a participant in any session; sessions list participants in '
  + 'session.participants (default: the user who ran the pipeline).';

const $ = (id) => document.getElementById(id);

const state = {
  token: null,
  callsPage: 1,
  transcriptsSession: null,
  transcriptsPage: 1,
  stream: null,          // the AbortController of the caption stream being read
  segments: new Map(),   // speaker and segment number -> its .caption element
  speakers: new Map(),   // speaker -> colour number (0…7), in the order they first spoke
  user: null,            // who the token is (GET /v1/live)
  joinable: new Set(),   // live sessions the user may join with their microphone
  call: null,            // the call joined with the microphone (see "joining a call")
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
async function api(path, { signal, raw = false, accept = 'application/json', body, extraHeaders = {} } = {}) {
  if (!state.token) throw new APIError(401, 'missing_token', 'log in first');
  let response;
  const headers = { ...extraHeaders, 'Authorization': 'Bearer ' + state.token, 'Accept': accept };
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

async function login(token, session = null) {
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
  if (session) watch(session);
}

function logout({ keepStatus = false } = {}) {
  leave();
  stopStream();
  state.token = null;
  try { sessionStorage.removeItem(TOKEN_KEY); } catch (ignored) { /* storage off */ }
  for (const key of Object.keys(state.requests)) state.requests[key] += 1;  // drop answers in flight
  for (const id of ['live-sessions', 'calls', 'transcripts', 'utterances']) resetList($(id));
  clearCaptions();
  clearControls();
  clearParticipants();
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
  if (answer && typeof answer.user === 'string') state.user = answer.user;
  state.joinable = new Set(sessions.filter((session) => session.canJoin === true).map((session) => session.id));
  updateCallPanel();
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

// Each speaker keeps one colour (of 8) for as long as the page watches the session.
function colourOf(speaker) {
  if (!state.speakers.has(speaker)) state.speakers.set(speaker, state.speakers.size % 8);
  return String(state.speakers.get(speaker));
}

// MARK: a call's participants: who is connected, who muted, and a level bar each (the server's readings)

function renderParticipants(participants) {
  const list = $('participants');
  const items = participants.filter((p) => p && typeof p.name === 'string').map((presence) => {
    let item = [...list.children].find((child) => child.dataset.participant === presence.name);
    if (!item) {
      item = document.createElement('li');
      item.dataset.participant = presence.name;
      const name = document.createElement('span');
      name.className = 'speaker';
      name.dataset.colour = colourOf(presence.name);
      name.textContent = presence.name;
      const status = document.createElement('span');
      status.className = 'presence';
      const level = document.createElement('meter');
      level.className = 'level';
      level.min = 0;
      level.max = 1;
      level.value = 0;
      level.setAttribute('aria-label', presence.name + ' level');
      item.append(name, ' ', status, level);
    }
    item.dataset.connected = String(Boolean(presence.connected));
    item.dataset.muted = String(Boolean(presence.muted));
    item.querySelector('.presence').textContent = !presence.connected ? 'left' : presence.muted ? 'muted' : '';
    if (!presence.connected || presence.muted) item.querySelector('meter').value = 0;
    return item;
  });
  list.replaceChildren(...items);
  list.hidden = items.length === 0;
}

function showSpeakerLevel(reading) {
  if (typeof reading.level !== 'number' || !isFinite(reading.level)) return;
  const item = [...$('participants').children].find((child) => child.dataset.participant === reading.speaker);
  if (item && item.dataset.connected === 'true') item.querySelector('meter').value = Math.max(0, Math.min(1, reading.level));
}

function clearParticipants() {
  $('participants').replaceChildren();
  $('participants').hidden = true;
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
  // Each speaker's recognizer numbers its own segments: a caption is its speaker's segment.
  const speaker = typeof caption.speaker === 'string' && caption.speaker !== '' ? caption.speaker : null;
  const key = (speaker === null ? '' : speaker + '\n') + String(caption.segment);
  let element = state.segments.get(key);
  const revision = typeof caption.revision === 'number' ? caption.revision : null;
  if (element && revision !== null && element.dataset.revision !== ''
      && Number(element.dataset.revision) > revision) {
    return;  // older than what is shown
  }
  if (!element) {
    element = document.createElement('p');
    element.dataset.segment = String(caption.segment);
    element.dataset.speaker = speaker === null ? '' : speaker;
    const time = document.createElement('span');
    time.className = 'time';
    const words = document.createElement('span');
    words.className = 'text';
    words.append(document.createTextNode(''));
    if (speaker === null) {
      element.append(time, ' ', words);
    } else {
      const name = document.createElement('span');
      name.className = 'speaker';
      name.dataset.colour = colourOf(speaker);
      name.textContent = speaker + ':';
      element.append(time, ' ', name, ' ', words);
    }
    box.append(element);
    state.segments.set(key, element);
    while (box.children.length > MAX_CAPTIONS) {
      const oldest = box.firstElementChild;
      const oldestKey = (oldest.dataset.speaker ? oldest.dataset.speaker + '\n' : '') + oldest.dataset.segment;
      state.segments.delete(oldestKey);
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
  if (state.call !== null && state.call.session !== id) leave();
  stopStream();
  state.speakers.clear();
  clearParticipants();
  const controller = new AbortController();
  state.stream = controller;
  const box = $('captions');
  clearCaptions();
  clearControls();
  box.dataset.session = id;
  box.dataset.state = 'connecting';
  $('captions-title').textContent = 'Captions of ' + id;
  updateCallPanel();
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
        const reading = JSON.parse(event.data);
        if (typeof reading.speaker === 'string') showSpeakerLevel(reading);
        else showLevel(reading);
      } catch (error) {
        setStatus('a level event that is not JSON: ' + describe(error), 'error');
      }
    } else if (event.type === 'participants') {
      try {
        const answer = JSON.parse(event.data);
        renderParticipants(Array.isArray(answer.participants) ? answer.participants : []);
      } catch (error) {
        setStatus('a participants event that is not JSON: ' + describe(error), 'error');
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
      leave('The call ended.');
      updateCallPanel();
      clearParticipants();
      setStatus('The session ' + id + ' ended.');
      // What it stored is in the stored list now; it is no longer live.
      loadCalls(state.callsPage);
      loadLive();
    }
  });
  // A stream that drops without `end` (the network blinked, a proxy restarted) is opened again with the id
  // of the last caption shown (Last-Event-ID): the server sends only what came after, nothing twice.
  let attempts = 0;
  try {
    for (;;) {
      try {
        const extraHeaders = parser.lastEventId ? { 'Last-Event-ID': parser.lastEventId } : {};
        const response = await api('/v1/sessions/' + encodeURIComponent(id) + '/captions',
                                   { signal: controller.signal, raw: true, accept: 'text/event-stream', extraHeaders });
        if (!current()) return;
        attempts = 0;
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
      } catch (error) {
        if (!current()) return;
        // The server's refusal (the session ended, the token was revoked) is final; a network error is not.
        if (error instanceof APIError && error.status !== 0) {
          box.dataset.state = 'error';
          fail(error);
          return;
        }
      }
      if (!current() || box.dataset.state === 'ended') return;
      parser.buffer = '';  // a half-received event is sent again
      attempts += 1;
      if (attempts > STREAM_RECONNECT_ATTEMPTS) {
        box.dataset.state = 'closed';
        setStatus('The caption stream of ' + id + ' closed.');
        return;
      }
      box.dataset.state = 'reconnecting';
      setStatus('The caption stream of ' + id + ' dropped: reconnecting…');
      const base = Math.min(8000, 500 * 2 ** (attempts - 1));
      await new Promise((resume) => setTimeout(resume, base + Math.random() * base / 2));
      if (!current()) return;
    }
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

// MARK: joining a call (the participant audio WebSocket of docs/calls.md)

const CALL_FRAME_MS = 20;               // one message: 20 ms of 16-bit mono PCM
const CALL_BUFFER_SECONDS = 10;         // audio kept while reconnecting; older is dropped, and the page says so
const RECONNECT_DELAYS = [500, 1000, 2000, 4000, 8000];  // ms before each attempt, plus up to half again (jitter)
const RECONNECT_ATTEMPTS = 8;
// Close codes a new connection would get again: the page leaves and says why.
const FINAL_CLOSE_CODES = [1002, 1003, 1007, 1008, 1009];
const MUTED_KEEPALIVE_MS = 10000;

function setCall(name, text) {
  const joined = state.call !== null;
  $('call').dataset.state = name;
  $('call-status').textContent = text;
  $('join').hidden = joined;
  $('leave').hidden = !joined;
  $('mute').hidden = !joined;
  $('voice-processing').disabled = joined;
}

// The panel shows for a live call the user may join (and while joined).
function updateCallPanel() {
  const box = $('captions');
  const id = box.dataset.session;
  const joinable = Boolean(id) && state.joinable.has(id) && box.dataset.state !== 'ended';
  $('call').hidden = !joinable && state.call === null;
}

function microphoneProblem(error) {
  const name = error && error.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return 'The microphone was refused: allow this page to use it (in the browser\'s prompt or site settings) and join again.';
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'No microphone was found.';
  if (name === 'NotReadableError') return 'The microphone cannot be opened (another program may be using it).';
  return 'Cannot open the microphone: ' + describe(error);
}

async function join() {
  const id = $('captions').dataset.session;
  if (!id || state.call !== null || !state.user) return;
  const processing = $('voice-processing').checked;
  const call = { session: id, participant: state.user, media: null, context: null, node: null, socket: null,
                 queue: [], dropped: 0, muted: false, leaving: false, attempts: 0, timer: null, keepalive: null };
  state.call = call;
  setCall('joining', 'Asking for the microphone…');
  try {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw new DOMException('this browser gives pages a microphone only over https or on localhost', 'NotSupportedError');
    }
    call.media = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: processing, noiseSuppression: processing, autoGainControl: processing, channelCount: 1 },
    });
  } catch (error) {
    if (state.call === call) state.call = null;
    setCall('error', microphoneProblem(error));
    updateCallPanel();
    return;
  }
  if (state.call !== call) {  // left while the browser asked
    stopMedia(call);
    return;
  }
  try {
    // A 16 kHz context: the browser resamples the microphone; the worklet only converts to 16-bit PCM.
    call.context = new AudioContext({ sampleRate: 16000 });
    let source;
    try {
      source = call.context.createMediaStreamSource(call.media);
    } catch (ignored) {
      // A browser that cannot take a microphone into a context of another rate: its own rate (8–48 kHz).
      call.context.close();
      call.context = new AudioContext();
      source = call.context.createMediaStreamSource(call.media);
    }
    await call.context.audioWorklet.addModule('/capture-worklet.js');
    const frames = Math.round(call.context.sampleRate * CALL_FRAME_MS / 1000);
    call.node = new AudioWorkletNode(call.context, 'pcm-capture', { processorOptions: { frames } });
    call.node.port.onmessage = (event) => sendAudio(call, event.data);
    source.connect(call.node);
    call.node.connect(call.context.destination);  // silent (the worklet writes no output); keeps it pulled
    await call.context.resume();
  } catch (error) {
    leave();
    setCall('error', 'Cannot capture the microphone: ' + describe(error));
    return;
  }
  if (state.call === call) openSocket(call);
}

function socketURL(call) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return scheme + '//' + location.host + '/v1/sessions/' + encodeURIComponent(call.session) + '/participants/'
    + encodeURIComponent(call.participant) + '/audio?sampleRate=' + call.context.sampleRate + '&channels=1&encoding=s16le';
}

// The token goes in the subprotocol list (a browser's WebSocket cannot set headers), never in the URL.
function openSocket(call) {
  if (state.call !== call || call.leaving) return;
  let socket;
  try {
    socket = new WebSocket(socketURL(call), ['audiograph', 'bearer.' + state.token]);
  } catch (error) {
    leave();
    setCall('error', 'Cannot connect to the call: ' + describe(error));
    return;
  }
  socket.binaryType = 'arraybuffer';
  call.socket = socket;
  socket.addEventListener('open', () => {
    if (state.call !== call) {
      socket.close(1000, 'left');
      return;
    }
    call.attempts = 0;
    if (call.muted) socket.send(JSON.stringify({ muted: true }));
    flushQueue(call);
    const lost = call.dropped > 0
      ? ' ' + (call.dropped * CALL_FRAME_MS / 1000).toFixed(1) + ' s of audio from while the connection was down was dropped.'
      : '';
    call.dropped = 0;
    setCall('joined', (call.muted ? 'In the call, muted.' : 'In the call: the others hear you.') + lost);
  });
  socket.addEventListener('close', (event) => {
    if (call.socket === socket) call.socket = null;
    if (state.call !== call || call.leaving) return;
    if (FINAL_CLOSE_CODES.includes(event.code)) {
      leave();
      setCall('error', 'The server ended the connection (' + event.code + (event.reason ? ': ' + event.reason : '') + ').');
      return;
    }
    call.attempts += 1;
    if (call.attempts > RECONNECT_ATTEMPTS) {
      leave();
      setCall('error', 'Lost the connection to the call; join again.');
      return;
    }
    const base = RECONNECT_DELAYS[Math.min(call.attempts, RECONNECT_DELAYS.length) - 1];
    setCall('reconnecting', 'Connection lost: reconnecting (attempt ' + call.attempts + ' of ' + RECONNECT_ATTEMPTS + ')…');
    call.timer = setTimeout(() => openSocket(call), base + Math.random() * base / 2);
  });
}

// Audio goes out at once while the socket is open; meanwhile it waits (at most CALL_BUFFER_SECONDS).
function sendAudio(call, buffer) {
  if (state.call !== call || call.muted) return;
  const open = call.socket !== null && call.socket.readyState === WebSocket.OPEN;
  if (open && call.queue.length === 0) {
    call.socket.send(buffer);
    return;
  }
  call.queue.push(buffer);
  while (call.queue.length > CALL_BUFFER_SECONDS * 1000 / CALL_FRAME_MS) {
    call.queue.shift();
    call.dropped += 1;
  }
  if (open) flushQueue(call);
}

function flushQueue(call) {
  while (call.queue.length > 0 && call.socket !== null && call.socket.readyState === WebSocket.OPEN) {
    call.socket.send(call.queue.shift());
  }
}

// Muted: the microphone track is off, nothing is sent, and the call is told.
function setMuted(muted) {
  const call = state.call;
  if (!call) return;
  call.muted = muted;
  for (const track of call.media ? call.media.getAudioTracks() : []) track.enabled = !muted;
  if (muted) call.queue.length = 0;
  if (call.socket !== null && call.socket.readyState === WebSocket.OPEN) call.socket.send(JSON.stringify({ muted }));
  // Muted, nothing else is sent: say it again now and then, so the server's idle timeout (30 s) keeps the call.
  clearInterval(call.keepalive);
  call.keepalive = muted ? setInterval(() => {
    if (call.socket !== null && call.socket.readyState === WebSocket.OPEN) call.socket.send(JSON.stringify({ muted: true }));
  }, MUTED_KEEPALIVE_MS) : null;
  $('mute').textContent = muted ? 'Unmute' : 'Mute';
  $('mute').setAttribute('aria-pressed', String(muted));
  if ($('call').dataset.state === 'joined') setCall('joined', muted ? 'In the call, muted.' : 'In the call: the others hear you.');
}

function stopMedia(call) {
  if (call.node) {
    call.node.port.onmessage = null;
    call.node.disconnect();
  }
  if (call.context) call.context.close().catch(() => {});
  if (call.media) for (const track of call.media.getTracks()) track.stop();
}

// Leaving closes the socket cleanly (the last sentence is finalized) and releases the microphone.
function leave(text = 'You left the call.') {
  const call = state.call;
  if (!call) return;
  call.leaving = true;
  state.call = null;
  clearTimeout(call.timer);
  clearInterval(call.keepalive);
  stopMedia(call);
  if (call.socket !== null) {
    flushQueue(call);
    call.socket.close(1000, 'left');
  }
  $('mute').textContent = 'Mute';
  $('mute').setAttribute('aria-pressed', 'false');
  setCall('idle', text);
  updateCallPanel();
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

  $('join').addEventListener('click', () => join());
  $('leave').addEventListener('click', () => leave());
  $('mute').addEventListener('click', () => setMuted(!(state.call && state.call.muted)));
  // Going away leaves the call: the microphone is released and the last sentence finalized.
  window.addEventListener('pagehide', () => leave());

  // /?session=ID#token=TOKEN (kiosks, an app's web view, tests): the fragment never reaches a server, and it
  // leaves the address bar (and so history and bookmarks) at once.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const linked = fragment.get('token');
  const session = new URLSearchParams(location.search).get('session');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  let saved = null;
  try { saved = sessionStorage.getItem(TOKEN_KEY); } catch (ignored) { /* storage off */ }
  if (linked) {
    login(linked, session);
  } else if (saved) {
    login(saved, session);
  } else {
    showView('login');
    $('token').focus();
  }
}

start();
