"""Network helpers of the test servers (tests/mailservers.py): a free port on
127.0.0.1, and a TCP proxy that can take a server down and bring it back on the same
port."""

from __future__ import annotations

import socket

__all__ = ["TcpProxy", "free_port"]


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to ``target``; :meth:`down` refuses new connections and
    cuts the open ones (as a stopped server would), :meth:`up` serves again on the same
    port. Lets one test take "the IMAP server" down without stopping the session Dovecot."""

    def __init__(self, target_host: str, target_port: int) -> None:
        import threading

        self.target = (target_host, target_port)
        self.host, self.port = "127.0.0.1", free_port()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self.up()

    def up(self) -> None:
        import threading

        with self._lock:
            if self._listener is not None:
                return
            lsock = socket.socket()
            lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            lsock.bind((self.host, self.port))
            lsock.listen(50)
            self._listener = lsock
        threading.Thread(target=self._accept, args=(lsock,), daemon=True).start()

    def down(self) -> None:
        with self._lock:
            lsock, self._listener = self._listener, None
            conns, self._conns = self._conns, []
        for sock in ([lsock] if lsock else []) + conns:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self, lsock: socket.socket) -> None:
        import threading

        while True:
            try:
                client, _ = lsock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target, timeout=10)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not lsock:
                    client.close()
                    server.close()
                    return
                self._conns += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
