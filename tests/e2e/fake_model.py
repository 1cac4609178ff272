"""A fake model server on 127.0.0.1 for the end-to-end suite: it answers the
Anthropic Messages API (streaming or not, for Claude Code), the OpenAI
Responses API (streamed, for Codex) and OpenAI Chat Completions (streaming or
not, for OpenClaw's custom OpenAI-compatible provider) with canned words, so the real harness
programs run a whole session offline. It prints its port on stdout,
logs each request path to stderr, appends each request body to the file
$FAKE_MODEL_REQUESTS names (when set), and never listens on another address.

The reply: the model's text is REPLY (below), plus the request count, so a
test can tell sessions apart."""

import json
import os
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
        log = os.environ.get("FAKE_MODEL_REQUESTS")
        if log:
            with Handler.lock, open(log, "ab") as f:
                f.write(raw.replace(b"\n", b" ") + b"\n")
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
        if path.endswith("/responses"):
            return self.responses_api(req)
        if path.endswith("/chat/completions"):
            return self.chat_completions(req)
        if not path.endswith("/v1/messages"):
            return self.send(200, {})
        n = self.next_count()
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


    @staticmethod
    def next_count():
        with Handler.lock:
            Handler.count += 1
            return Handler.count

    def responses_api(self, req):
        """One assistant message, as the Responses API streams it (Codex 0.169)."""
        n = self.next_count()
        text = f"{REPLY} (reply {n})"
        rid = f"resp_fake{n:04d}"
        item = {
            "type": "message",
            "id": f"msg_fake{n:04d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        usage = {"input_tokens": 42, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 17, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 59}
        base = {"id": rid, "object": "response", "model": req.get("model", "gpt-fake")}
        chunks = [
            sse("response.created", {"type": "response.created",
                                     "response": dict(base, status="in_progress")}),
            sse("response.output_item.added", {"type": "response.output_item.added",
                                               "output_index": 0,
                                               "item": dict(item, content=[], status="in_progress")}),
            sse("response.output_text.delta", {"type": "response.output_text.delta",
                                               "item_id": item["id"], "output_index": 0,
                                               "content_index": 0, "delta": text}),
            sse("response.output_item.done", {"type": "response.output_item.done",
                                              "output_index": 0, "item": item}),
            sse("response.completed", {"type": "response.completed",
                                       "response": dict(base, status="completed",
                                                        output=[item], usage=usage)}),
        ]
        self.send(200, b"".join(chunks), "text/event-stream")


def chat_chunk(cid, model, delta, finish=None, usage=None):
    chunk = {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": model,
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        chunk["usage"] = usage
    return f"data: {json.dumps(chunk)}\n\n".encode()


def chat_completions(self, req):
    """One assistant message, as an OpenAI-compatible server streams it."""
    n = self.next_count()
    text = f"{REPLY} (reply {n})"
    cid = f"chatcmpl-fake{n:04d}"
    model = req.get("model", "fake-model")
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    if not req.get("stream"):
        return self.send(200, {
            "id": cid, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": usage,
        })
    chunks = [
        chat_chunk(cid, model, {"role": "assistant", "content": ""}),
        chat_chunk(cid, model, {"content": text}),
        chat_chunk(cid, model, {}, "stop", usage),
        b"data: [DONE]\n\n",
    ]
    self.send(200, b"".join(chunks), "text/event-stream")


Handler.chat_completions = chat_completions


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
