#!/usr/bin/env python3
"""A TCP relay for the browser tests: network blips on demand.

  cut_proxy.py TARGET_PORT

Listens on 127.0.0.1 (a free port, printed on stderr as "listening PORT"), relays every connection to
127.0.0.1:TARGET_PORT, and on SIGUSR1 drops every connection open then (both sides closed at once, as a
network failure or a restarting proxy would; new connections are relayed as before). Prints "cut N" on stderr after a cut.
"""
import asyncio
import signal
import sys


async def main(target):
    open_pairs = set()

    async def pipe(reader, writer):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def relay(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_writer.close()
            return
        pair = (client_writer, server_writer)
        open_pairs.add(pair)
        try:
            await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))
        finally:
            open_pairs.discard(pair)

    def cut():
        count = len(open_pairs)
        for client, server in list(open_pairs):
            for writer in (client, server):
                transport = writer.transport
                if transport is not None:
                    transport.abort()
        print(f"cut {count}", file=sys.stderr, flush=True)

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, cut)
    print(f"listening {server.sockets[0].getsockname()[1]}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
