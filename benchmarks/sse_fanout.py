#!/usr/bin/env python3
"""SSE fan-out load client for benchmarks/http.sh: N viewers of one live session's caption stream.

Opens --viewers connections to GET /v1/sessions/ID/captions (HTTP/1.1, chunked, the bearer token in the
header, as the web page does) from one epoll loop, and reads until every stream has sent `end` and closed (or
--timeout passes). For every `caption` event a viewer receives, the latency is its receipt time minus the
event's `published` field (the server's wall clock when it published the caption; same machine, same clock).

Receipt time is the kernel's: each read asks for the socket's receive timestamp (SO_TIMESTAMPNS, when the
bytes reached the viewer's socket), so the figure is the server's fan-out and not this client's own queueing
(one python3 process reading 2,000 sockets in turn). The client's own time, after its read returned, is
reported too (`user_*`). Only captions published after the last viewer connected count: earlier ones reach a
viewer as the replay of what is on screen, not live.

Prints one line `RESULT key=value ...` on stdout and a summary on stderr. Keys:
  viewers      connections asked for          connected  streams that answered 200
  dropped      streams that closed (or failed) before `end`, or were still open at --timeout
  captions     distinct caption events counted (published after all were connected; seen by any viewer)
  deliveries   caption events received, over all viewers (captions x connected when none is missed)
  missed       captions x connected - deliveries (a viewer that did not get a caption others got)
  p50_ms p99_ms max_ms   publication -> receipt (kernel time) over all deliveries; over_100ms: how many > 100 ms
  user_p50_ms user_p99_ms user_max_ms   the same to when this client read it
  connect_s    seconds from the first connection attempt to the last viewer connected
  kernel_stamps  1 if the kernel gave receive timestamps (else receipt = the client's time)
Standard library only; Linux.
"""
import argparse
import errno
import json
import resource
import select
import socket
import struct
import sys
import time

SO_TIMESTAMPNS = 35  # Linux: SO_TIMESTAMPNS_OLD = SCM_TIMESTAMPNS, a struct timespec (2 x 64-bit on x86_64)
CMSG_SPACE = socket.CMSG_SPACE(16)


class Viewer:
    def __init__(self, index):
        self.index = index
        self.sock = None
        self.sent = False
        self.chunks = []  # (kernel time, user time, bytes)
        self.closed = False
        self.error = None


def parse(viewer):
    """(status, [(event name, id, data bytes, kernel time, user time)], ended) from what a viewer read."""
    head, body, status, chunked = b"", [], None, False
    buffer, events, out = b"", b"", []
    ended = False
    for kernel, user, data in viewer.chunks:
        buffer += data
        if status is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                continue
            lines = buffer[:end].decode("latin-1").split("\r\n")
            buffer = buffer[end + 4:]
            status = int(lines[0].split()[1])
            chunked = any(l.lower().replace(" ", "") == "transfer-encoding:chunked" for l in lines[1:])
        if chunked:
            while True:
                line_end = buffer.find(b"\r\n")
                if line_end < 0:
                    break
                size = int(buffer[:line_end].split(b";")[0], 16)
                if len(buffer) < line_end + 2 + size + 2:
                    break
                events += buffer[line_end + 2:line_end + 2 + size]
                buffer = buffer[line_end + 2 + size + 2:]
        else:
            events, buffer = events + buffer, b""
        while True:
            end = events.find(b"\n\n")
            if end < 0:
                break
            block, events = events[:end], events[end + 2:]
            name, event_id, lines = None, None, []
            for line in block.split(b"\n"):
                if line.startswith(b"event: "):
                    name = line[7:]
                elif line.startswith(b"id: "):
                    event_id = int(line[4:])
                elif line.startswith(b"data: "):
                    lines.append(line[6:])
            if name == b"end":
                ended = True
            out.append((name, event_id, b"\n".join(lines), kernel, user))
    return status, out, ended


def percentile(values, fraction):
    return values[min(len(values) - 1, int(fraction * len(values)))] if values else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--viewers", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for every stream's end")
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.viewers + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.viewers + 1024), hard))
    request = (f"GET /v1/sessions/{args.session}/captions HTTP/1.1\r\nHost: {args.host}:{args.port}\r\n"
               f"Authorization: Bearer {args.token}\r\nAccept: text/event-stream\r\n\r\n").encode()

    poller = select.epoll()
    by_fd = {}
    viewers = [Viewer(n) for n in range(args.viewers)]
    started = time.time()
    deadline = started + args.timeout
    kernel_stamps = False
    waiting = list(viewers)  # not yet connecting: opened 100 at a time so the listen backlog stays small
    connecting = 0
    headers_seen = set()
    all_connected_at = None
    open_count = 0

    def open_more():
        nonlocal connecting, open_count
        while waiting and connecting < 100:
            viewer = waiting.pop(0)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            sock.setblocking(False)
            code = sock.connect_ex((args.host, args.port))
            if code not in (0, errno.EINPROGRESS):
                viewer.error, viewer.closed = f"connect: {errno.errorcode.get(code, code)}", True
                sock.close()
                continue
            viewer.sock = sock
            by_fd[sock.fileno()] = viewer
            poller.register(sock.fileno(), select.EPOLLOUT | select.EPOLLIN)
            connecting += 1
            open_count += 1

    open_more()
    while open_count and time.time() < deadline:
        for fd, mask in poller.poll(1.0):
            viewer = by_fd[fd]
            if not viewer.sent:
                code = viewer.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                connecting -= 1
                if code:
                    viewer.error, viewer.closed = f"connect: {errno.errorcode.get(code, code)}", True
                else:
                    viewer.sock.sendall(request)  # small: fits the empty send buffer at once
                    viewer.sent = True
                    poller.modify(fd, select.EPOLLIN)
                if viewer.closed:
                    poller.unregister(fd)
                    viewer.sock.close()
                    open_count -= 1
                open_more()
                continue
            try:
                data, ancillary, _, _ = viewer.sock.recvmsg(65536, CMSG_SPACE)
            except BlockingIOError:
                continue
            except OSError as error:
                data, viewer.error = b"", str(error)
            user = time.time()
            kernel = user
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", payload[:16])
                    kernel, kernel_stamps = seconds + nanoseconds / 1e9, True
            if data:
                viewer.chunks.append((kernel, user, data))
                if viewer.index not in headers_seen and b"\r\n\r\n" in b"".join(c[2] for c in viewer.chunks):
                    headers_seen.add(viewer.index)
                    if len(headers_seen) == args.viewers:
                        all_connected_at = user
                        print(f"sse: {args.viewers} viewers connected in {user - started:.2f} s", file=sys.stderr)
            else:
                viewer.closed = True
                poller.unregister(fd)
                viewer.sock.close()
                open_count -= 1
    for viewer in viewers:
        if viewer.sock and not viewer.closed:
            viewer.sock.close()

    connected, dropped, errors = 0, 0, set()
    captions, latencies, user_latencies, per_viewer = set(), [], [], []
    for viewer in viewers:
        if viewer.error:
            errors.add(viewer.error)
        status, events, ended = parse(viewer)
        if status != 200:
            dropped += 1
            if status is not None:
                errors.add(f"HTTP {status}")
            continue
        connected += 1
        if not (ended and viewer.closed):
            dropped += 1
        for name, event_id, data, kernel, user in events:
            if name != b"caption":
                continue
            published = json.loads(data).get("published")
            if published is None:
                errors.add("a caption event without `published`")
            elif all_connected_at is not None and published >= all_connected_at:
                captions.add(event_id)
                latencies.append(kernel - published)
                user_latencies.append(user - published)
    latencies.sort()
    user_latencies.sort()
    ms = lambda seconds: round(seconds * 1000, 2)
    result = {
        "viewers": args.viewers, "connected": connected, "dropped": dropped, "captions": len(captions),
        "deliveries": len(latencies), "missed": len(captions) * connected - len(latencies),
        "p50_ms": ms(percentile(latencies, 0.50)), "p99_ms": ms(percentile(latencies, 0.99)),
        "max_ms": ms(latencies[-1] if latencies else 0), "over_100ms": sum(1 for s in latencies if s > 0.1),
        "user_p50_ms": ms(percentile(user_latencies, 0.50)), "user_p99_ms": ms(percentile(user_latencies, 0.99)),
        "user_max_ms": ms(user_latencies[-1] if user_latencies else 0),
        "connect_s": round((all_connected_at or time.time()) - started, 2), "kernel_stamps": int(kernel_stamps),
    }
    print("RESULT " + " ".join(f"{k}={v}" for k, v in result.items()))
    if errors:
        print("sse errors: " + "; ".join(sorted(errors)[:5]), file=sys.stderr)
    print(f"sse: {json.dumps(result)}", file=sys.stderr)


if __name__ == "__main__":
    main()
