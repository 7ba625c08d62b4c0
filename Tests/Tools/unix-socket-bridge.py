"""unix-socket-bridge.py PORT SOCKET: a port on 127.0.0.1 whose every connection is forwarded to a Unix socket, so
that HTTP tools that speak only TCP (Schemathesis) reach nudged, which listens on its socket alone. PORT 0 takes a
free one. Prints "ready PORT" once it listens."""
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(port, socket):
    async def serve(client_reader, client_writer):
        try:
            reader, writer = await asyncio.open_unix_connection(socket)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, writer), pipe(reader, client_writer))

    server = await asyncio.start_server(serve, "127.0.0.1", port)
    print(f"ready {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
