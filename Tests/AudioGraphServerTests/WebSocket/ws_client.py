"""An RFC 6455 client for the WebSocket tests (python3-websockets 10.4; run by /usr/bin/python3).

argv[1] is a file holding a JSON plan; one JSON object per line goes to stdout:
  {"url": "ws://…", "headers": {…}, "subprotocols": [...], "messages": [{"binary": BASE64} | {"text": "…"}],
   "then": "close" | "wait" | "hold"}
    -> {"event": "open", "subprotocol": …} then {"event": "sent"}, then
       close: closes with 1000; wait: waits for the server to close; hold: waits for stdin to end, then closes;
       and at the end {"event": "closed", "code": …, "reason": …}
    -> {"event": "refused", "status": N} when the server answers the handshake with an HTTP error.
  {"raw": "GET … HTTP/1.1\\r\\n…\\r\\n\\r\\n", "host": …, "port": …, "after": BASE64}
    -> {"event": "response", "head": "…", "body": "…"} (the body: Content-Length bytes); with `after`, sends it,
       then {"event": "eof", "received": HEX} once the server closes the connection.
"""
import asyncio
import base64
import json
import socket
import sys

import websockets


def say(**event):
    print(json.dumps(event), flush=True)


async def websocket(plan):
    try:
        ws = await websockets.connect(plan["url"], extra_headers=plan.get("headers", {}),
                                      subprotocols=plan.get("subprotocols") or None, max_size=None,
                                      ping_interval=None, open_timeout=30, close_timeout=120)  # a loaded CI machine drains slowly
    except websockets.exceptions.InvalidStatusCode as error:
        say(event="refused", status=error.status_code)  # websockets 10.4 keeps no body: see "raw"
        return
    say(event="open", subprotocol=ws.subprotocol)
    try:
        for message in plan.get("messages", []):
            if "binary" in message:
                await ws.send(base64.b64decode(message["binary"]))
            else:
                await ws.send(message["text"])
        say(event="sent")
        then = plan.get("then", "close")
        if then == "hold":
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
            await ws.close()
        elif then == "close":
            await ws.close()
    except websockets.exceptions.ConnectionClosed:
        pass
    await ws.wait_closed()
    say(event="closed", code=ws.close_code, reason=ws.close_reason)


def raw(plan):
    connection = socket.create_connection((plan["host"], plan["port"]), timeout=30)
    connection.sendall(plan["raw"].encode())
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(4096)
        if not chunk:
            break
        received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = connection.recv(4096)
        if not chunk:
            break
        rest += chunk
    say(event="response", head=head.decode(errors="replace"), body=rest[:length].decode(errors="replace"))
    rest = rest[length:]
    if "after" not in plan:
        return
    try:
        connection.sendall(base64.b64decode(plan["after"]))
    except OSError:
        pass
    while True:
        try:
            chunk = connection.recv(4096)
        except OSError:
            break
        if not chunk:
            break
        rest += chunk
    say(event="eof", received=rest.hex())


with open(sys.argv[1]) as plan_file:
    plan = json.load(plan_file)
if "raw" in plan:
    raw(plan)
else:
    asyncio.run(websocket(plan))
