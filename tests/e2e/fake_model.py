"""A fake model server on 127.0.0.1 for the end-to-end suite: it answers the
Anthropic Messages API (streaming or not) with canned words, so the real
harness programs run a whole session offline. It prints its port on stdout,
logs each request path to stderr, and never listens on another address.

The reply: the model's text is REPLY (below), plus the request count, so a
test can tell sessions apart."""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "Done: I added the hello function to hello.py and its test passes."


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    count = 0
    lock = threading.Lock()

    def log_message(self, fmt, *args):
        sys.stderr.write("fake-model: " + (fmt % args) + "\n")

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b"{}"
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def send(self, status, payload, ctype="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send(200, {"data": [], "has_more": False})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        req = self.body()
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return self.send(200, {"input_tokens": 42})
        if not path.endswith("/v1/messages"):
            return self.send(200, {})
        with Handler.lock:
            Handler.count += 1
            n = Handler.count
        model = req.get("model", "claude-fake")
        text = f"{REPLY} (reply {n})"
        usage = {"input_tokens": 42, "output_tokens": 17}
        message = {
            "id": f"msg_fake{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        if not req.get("stream"):
            return self.send(200, message)
        start = dict(message, content=[], stop_reason=None)
        chunks = [
            sse("message_start", {"type": "message_start", "message": start}),
            sse("content_block_start", {"type": "content_block_start", "index": 0,
                                        "content_block": {"type": "text", "text": ""}}),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": text}}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                  "usage": {"output_tokens": 17}}),
            sse("message_stop", {"type": "message_stop"}),
        ]
        self.send(200, b"".join(chunks), "text/event-stream")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
