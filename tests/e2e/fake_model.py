"""A fake model server on 127.0.0.1 for the end-to-end suite: it answers the
Anthropic Messages API (streaming or not, for Claude Code), the OpenAI
Responses API (streamed, for Codex), OpenAI Chat Completions (streaming or
not, for OpenClaw's custom OpenAI-compatible provider) and the Gemini API
(`:generateContent`, `:streamGenerateContent?alt=sse`, for Gemini CLI) with canned words, so the real harness
programs run a whole session offline. It prints its port on stdout,
logs each request path to stderr, appends each request body to the file
$FAKE_MODEL_REQUESTS names (when set), and never listens on another address.

The reply: the model's text is REPLY (below), plus the request count, so a
test can tell sessions apart.

memsync's own model calls (a prompt holding MARKER) get SENTENCE, or, when
$FAKE_MODEL_SENTENCES names a JSON list, its entries in turn: a string is
the reply, {"hang": s} answers only after s seconds, {"status": n} fails
with HTTP n. It also answers Ollama's chat API (`/api/chat`)."""

import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "Done: I added the hello function to hello.py and its test passes."
# A request naming this makes the model write hello.py with the harness's own
# file-writing tool first (Claude Code's Write), then answer REPLY.
WRITE_TRIGGER = "add a hello function"
HELLO_PY = "def hello():\n    return \"hello\"\n"
# A request starting with this makes the model save a fact in Claude Code's
# auto memory, as its system prompt tells it to: a topic file, then the
# MEMORY.md index Claude Code loads into every later session of the project.
REMEMBER_TRIGGER = "remember that "
MEMORY_TOPIC = ("---\nname: Package manager\ndescription: which package manager this project uses\n"
                "type: project\n---\n\nThis project uses pnpm; never run npm install.\n")
MEMORY_INDEX = "- [Package manager](package_manager.md) \u2014 pnpm, never npm\n"
# A request starting with this makes the model call memsync's memory_search
# MCP tool with the rest of the request as the query, then answer REPLY.
SEARCH_TRIGGER = "search your memory for "
SEARCH_TOOL = "mcp__memsync__memory_search"
# A request starting with this makes the model save the rest of it with
# memsync's memory_store MCP tool (which the person must approve).
STORE_TRIGGER = "save this in memory: "
STORE_TOOL = "mcp__memsync__memory_store"
# What the model answers when Claude Code asks it to compact a conversation;
# "quokkalantern" is a word only this summary says.
COMPACT_SUMMARY = (
    "<analysis>The user asked for a hello function.</analysis>\n"
    "<summary>1. Primary Request and Intent: a hello function in hello.py, "
    "written and tested; the release is code-named quokkalantern.</summary>"
)


# The first line of every prompt memsync sends a model (a memory sentence).
MARKER = "memsync-model-call:"
SENTENCE = ("Added a hello function to hello.py at the person's request, "
            "and its new test passes afterwards.")
# The scripted reply to a memsync call, set on the request by do_POST.
SENTENCE_KEY = "__memsync_sentence__"


class Script:
    """The replies $FAKE_MODEL_SENTENCES lists, one a memsync call."""
    lock = threading.Lock()
    entries = None
    used = 0

    @classmethod
    def next(cls):
        with cls.lock:
            if cls.entries is None:
                path = os.environ.get("FAKE_MODEL_SENTENCES")
                cls.entries = json.load(open(path)) if path else []
            if cls.used < len(cls.entries):
                cls.used += 1
                return cls.entries[cls.used - 1]
            return SENTENCE


def wants_json(req):
    """A request the harness makes for itself (Gemini CLI's routing)."""
    return (req.get("generationConfig") or {}).get("responseMimeType") == "application/json"


TOOL_OUTPUTS = ("tool_result", "function_call_output", "custom_tool_call_output")


def person_words(req):
    """The last thing the person typed (not the harness's reminders), and
    whether a tool's result came after it. Reads Anthropic and Chat Completions
    `messages` and Responses `input` alike."""
    for item in reversed(req.get("messages") or req.get("input") or []):
        if item.get("type") in TOOL_OUTPUTS or item.get("role") == "tool":
            return "", True
        if item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            return content, False
        # A harness may send its next words in the same turn as a tool result.
        after_tool = any(b.get("type") in TOOL_OUTPUTS for b in content)
        texts = [b.get("text", "") for b in content
                 if b.get("type") in ("text", "input_text")
                 and not b.get("text", "").lstrip().startswith("<")]
        if texts or after_tool:
            return (texts[-1] if texts else ""), after_tool
        # A turn of reminders only (OpenClaw's internal context): look further back.
    return "", False


def asked(req):
    """The person's last request, looking past tool calls and their results."""
    for item in reversed(req.get("messages") or []):
        if item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            return content
        if any(b.get("type") in TOOL_OUTPUTS for b in content):
            continue
        texts = [b.get("text", "") for b in content if b.get("type") == "text"
                 and not b.get("text", "").lstrip().startswith("<")]
        if texts:
            return texts[-1]
    return ""


def called(req, tool):
    """Whether the model already called `tool` in this conversation."""
    return any(b.get("type") == "tool_use" and b.get("name") == tool
               for m in req.get("messages") or [] if m.get("role") == "assistant"
               and isinstance(m.get("content"), list) for b in m["content"])


def search_step(req):
    """The next tool call of a request to search memory, or None: memsync's
    memory_search, first loaded through ToolSearch where Claude Code defers
    MCP tools (2.1.3xx offers them by name only)."""
    return mcp_step(req, SEARCH_TRIGGER, SEARCH_TOOL, lambda rest: {"query": rest})


def store_step(req):
    """The next tool call of a request to save a fact in memsync: its
    memory_store tool, loaded through ToolSearch first, or None."""
    return mcp_step(req, STORE_TRIGGER, STORE_TOOL, lambda rest: {"text": rest})


def mcp_step(req, trigger, tool, args):
    """The next call of a request starting with `trigger` to memsync's MCP
    `tool` with `args(rest of the request)`, or None once it was called."""
    words = asked(req)
    if not words.lower().startswith(trigger) or called(req, tool):
        return None
    if offers(req, tool):
        return tool, args(words[len(trigger):])
    if offers(req, "ToolSearch") and not any(
            b.get("type") == "tool_use" and b.get("name") == "ToolSearch"
            and tool in json.dumps(b.get("input"))
            for m in req.get("messages") or [] if m.get("role") == "assistant"
            and isinstance(m.get("content"), list) for b in m["content"]):
        return "ToolSearch", {"query": "select:" + tool, "max_results": 1}
    return None


def responses_search_step(req):
    """The memory_search call a Responses API request to search memory needs
    next (Codex names MCP tools by server and tool), or None; a request to
    save a fact, the memory_store call."""
    return (responses_mcp_step(req, SEARCH_TRIGGER, "memory_search", lambda r: {"query": r})
            or responses_mcp_step(req, STORE_TRIGGER, "memory_store", lambda r: {"text": r}))


def responses_mcp_step(req, trigger, short, make_args):
    """The call of memsync's MCP tool `short` that a Responses API request
    starting with `trigger` needs next, or None once it was called."""
    asked_words = ""
    for item in reversed(req.get("input") or []):
        if item.get("role") == "user":
            texts = [b.get("text", "") for b in item.get("content") or []
                     if b.get("type") == "input_text"
                     and not b.get("text", "").lstrip().startswith("<")]
            if texts:
                asked_words = texts[-1]
                break
    if not asked_words.lower().startswith(trigger):
        return None
    names = [(t.get("function") or t).get("name") or "" for t in req.get("tools") or []]
    tool = next((n for n in names if n.endswith(short)), None)
    items = req.get("input") or []
    if any(i.get("type") == "function_call" and short in (i.get("name") or "")
           for i in items):
        return None
    args = make_args(asked_words[len(trigger):])
    if tool is not None:
        return tool, args
    # Loaded by tool_search: a namespace of the server's tools.
    for out in (i for i in items if i.get("type") == "tool_search_output"):
        for ns in out.get("tools") or []:
            if any(t.get("name") == short for t in ns.get("tools") or []):
                return short, dict(args, namespace=ns.get("name"))
    # Codex 0.169 defers MCP tools behind its client-run `tool_search`.
    if any(t.get("type") == "tool_search" for t in req.get("tools") or []) \
            and not any(i.get("type") == "tool_search_call" for i in items):
        return "tool_search", {"query": "memsync " + short, "limit": 3}
    return None


def memory_step(req, n):
    """The next Write of a request to remember something (Claude Code's
    auto memory, at the folder its system prompt names), or None."""
    if not asked(req).lower().startswith(REMEMBER_TRIGGER) or not offers(req, "Write"):
        return None
    found = re.search(r"persistent file-based memory at `([^`]+)`", json.dumps(req))
    if not found:
        return None
    writes = sum(1 for m in req.get("messages") or [] if m.get("role") == "assistant"
                 and isinstance(m.get("content"), list)
                 for b in m["content"] if b.get("type") == "tool_use" and b.get("name") == "Write")
    files = [("package_manager.md", MEMORY_TOPIC), ("MEMORY.md", MEMORY_INDEX)]
    if writes >= len(files):
        return None
    name, text = files[writes]
    return {"type": "tool_use", "id": f"toolu_fake{n:04d}", "name": "Write",
            "input": {"file_path": os.path.join(found.group(1), name), "content": text}}


def offers(req, tool):
    """Whether the request offers the model `tool` (Anthropic, Responses or Chat Completions)."""
    return any((t.get("function") or t).get("name") == tool for t in req.get("tools") or [])


def tool_properties(req, tool):
    """The argument names of `tool` as the request declares it."""
    for t in req.get("tools") or []:
        f = t.get("function") or t
        if f.get("name") == tool:
            return ((f.get("parameters") or f.get("input_schema") or {}).get("properties") or {})
    return {}


def working_directory(req):
    """The directory the harness says it runs in (its system prompt)."""
    found = re.search(r"[Ww]orking (?:in the )?[Dd]irectory: ([^\\\n\"]+)", json.dumps(req))
    return found.group(1).strip() if found else os.getcwd()


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
        if MARKER in json.dumps(req) and not wants_json(req) and not path.endswith("count_tokens") \
                and ":countTokens" not in path:
            entry = Script.next()
            if isinstance(entry, dict) and "hang" in entry:
                time.sleep(entry["hang"])
                entry = SENTENCE
            if isinstance(entry, dict) and "status" in entry:
                return self.send(entry["status"], {"error": {"message": "scripted failure"}})
            req[SENTENCE_KEY] = entry
        if path.endswith("/api/chat"):
            text = req.get(SENTENCE_KEY, f"{REPLY} (reply {self.next_count()})")
            return self.send(200, {"model": req.get("model", "fake"), "done": True,
                                   "message": {"role": "assistant", "content": text}})
        if path.endswith("/count_tokens"):
            return self.send(200, {"input_tokens": 42})
        if path.endswith("/responses"):
            return self.responses_api(req)
        if path.endswith("/chat/completions"):
            return self.chat_completions(req)
        if ":streamGenerateContent" in path or ":generateContent" in path:
            return self.gemini(req, stream=":stream" in path)
        if ":countTokens" in path:
            return self.send(200, {"totalTokens": 42})
        if not path.endswith("/v1/messages"):
            return self.send(200, {})
        n = self.next_count()
        words, after_tool = person_words(req)
        if SENTENCE_KEY in req:
            blocks = [{"type": "text", "text": req[SENTENCE_KEY]}]
        elif "detailed summary of the conversation" in words:
            blocks = [{"type": "text", "text": COMPACT_SUMMARY}]
        elif search_step(req):
            name, args = search_step(req)
            blocks = [{"type": "tool_use", "id": f"toolu_fake{n:04d}", "name": name,
                       "input": args}]
        elif store_step(req):
            name, args = store_step(req)
            blocks = [{"type": "tool_use", "id": f"toolu_fake{n:04d}", "name": name,
                       "input": args}]
        elif memory_step(req, n):
            blocks = [memory_step(req, n)]
        elif not after_tool and WRITE_TRIGGER in words.lower() and offers(req, "Write"):
            target = os.path.join(working_directory(req), "hello.py")
            blocks = [{"type": "tool_use", "id": f"toolu_fake{n:04d}", "name": "Write",
                       "input": {"file_path": target, "content": HELLO_PY}}]
        else:
            blocks = [{"type": "text", "text": f"{REPLY} (reply {n})"}]
        self.anthropic_message(req, n, blocks)

    def anthropic_message(self, req, n, blocks):
        """One message, whole or as Anthropic's SSE stream."""
        stop = "tool_use" if blocks[-1]["type"] == "tool_use" else "end_turn"
        message = {
            "id": f"msg_fake{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": req.get("model", "claude-fake"),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 42, "output_tokens": 17},
        }
        if not req.get("stream"):
            return self.send(200, message)
        start = dict(message, content=[], stop_reason=None)
        chunks = [sse("message_start", {"type": "message_start", "message": start})]
        for i, block in enumerate(blocks):
            if block["type"] == "tool_use":
                opened = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                opened = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            chunks += [
                sse("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": opened}),
                sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                            "delta": delta}),
                sse("content_block_stop", {"type": "content_block_stop", "index": i}),
            ]
        chunks += [
            sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": stop, "stop_sequence": None},
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
        text = req.get(SENTENCE_KEY, f"{REPLY} (reply {n})")
        rid = f"resp_fake{n:04d}"
        words, after_tool = person_words(req)
        if SENTENCE_KEY in req:
            words, after_tool = "", True
        step = None if SENTENCE_KEY in req else responses_search_step(req)
        if step and step[0] == "tool_search":
            item = {"type": "tool_search_call", "id": f"tsc_fake{n:04d}", "status": "completed",
                    "call_id": f"call_fake{n:04d}", "execution": "client",
                    "arguments": step[1]}
        elif step:
            name, args = step
            namespace = args.pop("namespace", None)
            item = {"type": "function_call", "id": f"fc_fake{n:04d}", "status": "completed",
                    "call_id": f"call_fake{n:04d}", "name": name,
                    "arguments": json.dumps(args)}
            if namespace:
                item["namespace"] = namespace
        elif not after_tool and WRITE_TRIGGER in words.lower() and offers(req, "apply_patch"):
            # Codex's file-writing tool: a freeform patch.
            item = {"type": "custom_tool_call", "id": f"ctc_fake{n:04d}", "status": "completed",
                    "call_id": f"call_fake{n:04d}", "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: hello.py\n"
                             + "".join("+" + line + "\n" for line in HELLO_PY.splitlines())
                             + "*** End Patch\n"}
        else:
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
        opened = dict(item, status="in_progress")
        if item["type"] == "message":
            opened["content"] = []
        chunks = [
            sse("response.created", {"type": "response.created",
                                     "response": dict(base, status="in_progress")}),
            sse("response.output_item.added", {"type": "response.output_item.added",
                                               "output_index": 0, "item": opened}),
        ]
        if item["type"] == "message":
            chunks.append(sse("response.output_text.delta", {
                "type": "response.output_text.delta", "item_id": item["id"],
                "output_index": 0, "content_index": 0, "delta": text}))
        chunks += [
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


def chat_search_step(req):
    """The next tool call of a Chat Completions request to search memory, or
    None; of a request to save a fact, the memory_store call."""
    return (chat_mcp_step(req, SEARCH_TRIGGER, "memory_search", lambda r: {"query": r})
            or chat_mcp_step(req, STORE_TRIGGER, "memory_store", lambda r: {"text": r}))


def chat_mcp_step(req, trigger, short, make_args):
    """The next call of memsync's MCP tool `short` that a Chat Completions
    request holding `trigger` needs, or None. OpenClaw 2026.9 offers MCP
    tools through its Tool Search: first `tool_search`, then `tool_call`
    with the tool's id; a search that finds no such tool ends the attempt."""
    messages = req.get("messages") or []

    def typed(m):
        content = m.get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if b.get("type") == "text"]
        # Copilot CLI heads what the person typed with the time.
        texts = [re.sub(r"^\s*<current_datetime>.*?</current_datetime>\s*", "", t, flags=re.S)
                 for t in texts]
        return next((t for t in texts if not t.lstrip().startswith("<")), None)

    # The person's last message; OpenClaw adds internal-context turns after it.
    last = max((i for i, m in enumerate(messages)
                if m.get("role") == "user" and typed(m)), default=None)
    if last is None:
        return None
    words = typed(messages[last])
    at = words.lower().find(trigger)
    if at < 0:
        return None
    args = make_args(words[at + len(trigger):])
    turn = messages[last + 1:]
    calls = [c["function"]["name"] for m in turn for c in m.get("tool_calls") or []]
    names = [(t.get("function") or t).get("name") or "" for t in req.get("tools") or []]
    direct = next((t for t in names if t.endswith(short)), None)
    if direct:
        return None if direct in calls else (direct, args)
    if "tool_call" in calls or "tool_search" not in names:
        return None
    if "tool_search" not in calls:
        queries = {"memory_search": "memory search past sessions",
                   "memory_store": "memory store remember a fact"}
        return "tool_search", {"query": queries.get(short, short)}
    found = "\n".join(str(m.get("content")) for m in turn if m.get("role") == "tool")
    found = found.replace('\\"', '"')
    ids = re.findall(r'"id"\s*:\s*"([^"]*' + short + r'[^"]*)"', found)
    if ids and "tool_call" in names:
        return "tool_call", {"id": ids[0], "args": args}
    # qwen-code: the search loads the tool, which is then called by its name.
    named = re.findall(r'"name"\s*:\s*"([^"]*' + short + r')"', found)
    if named and named[0] not in calls:
        return named[0], args
    return None


def chat_completions(self, req):
    """One assistant message, as an OpenAI-compatible server streams it."""
    n = self.next_count()
    text = req.get(SENTENCE_KEY, f"{REPLY} (reply {n})")
    cid = f"chatcmpl-fake{n:04d}"
    model = req.get("model", "fake-model")
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    words, after_tool = person_words(req)
    if SENTENCE_KEY in req:
        words, after_tool = "", True
    step = None if SENTENCE_KEY in req else chat_search_step(req)
    if step:
        name, args = step
        call = {"id": f"call_fake{n:04d}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        deltas = [{"role": "assistant", "content": None,
                   "tool_calls": [dict(call, index=0)]}]
    elif not after_tool and WRITE_TRIGGER in words.lower() and (
            offers(req, "write_file") or offers(req, "write") or offers(req, "create")
            or offers(req, "editor")):
        if offers(req, "editor"):
            # Cline's, with an absolute path; it creates a missing file.
            name, args = "editor", {
                "path": os.path.join(working_directory(req), "hello.py"),
                "new_text": HELLO_PY}
        elif offers(req, "create"):
            # GitHub Copilot CLI's, with an absolute path.
            name, args = "create", {
                "path": os.path.join(working_directory(req), "hello.py"),
                "file_text": HELLO_PY}
        elif offers(req, "write_file"):
            # qwen-code's, with an absolute path.
            name, args = "write_file", {
                "file_path": os.path.join(working_directory(req), "hello.py"),
                "content": HELLO_PY}
        elif "filePath" in tool_properties(req, "write"):
            # opencode's, with an absolute path.
            name, args = "write", {
                "filePath": os.path.join(working_directory(req), "hello.py"),
                "content": HELLO_PY}
        else:
            # OpenClaw's file-writing tool, relative to its workspace.
            name, args = "write", {"path": "hello.py", "content": HELLO_PY}
        call = {"id": f"call_fake{n:04d}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        deltas = [{"role": "assistant", "content": None,
                   "tool_calls": [dict(call, index=0)]}]
    else:
        message, finish = {"role": "assistant", "content": text}, "stop"
        deltas = [{"role": "assistant", "content": ""}, {"content": text}]
    if not req.get("stream"):
        return self.send(200, {
            "id": cid, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": usage,
        })
    chunks = [chat_chunk(cid, model, d) for d in deltas] + [
        chat_chunk(cid, model, {}, finish, usage),
        b"data: [DONE]\n\n",
    ]
    self.send(200, b"".join(chunks), "text/event-stream")


Handler.chat_completions = chat_completions


def gemini_turns(req):
    """The person's last words in a Gemini request, and whether a function's
    response came after them."""
    for content in reversed(req.get("contents") or []):
        parts = content.get("parts") or []
        if any("functionResponse" in p for p in parts):
            return "", True
        if content.get("role") == "user":
            return " ".join(p.get("text", "") for p in parts), False
    return "", False


# A Gemini request naming this makes the model write four files, one
# write_file call a turn, then answer: a session with four tool calls.
FOUR_FILES_TRIGGER = "write four files"


def gemini_four_files_step(req):
    """The next write_file call of a request for four files, or None once
    four were answered."""
    contents = req.get("contents") or []
    first = next((c for c in contents if c.get("role") == "user"
                  and any(FOUR_FILES_TRIGGER in p.get("text", "").lower()
                          for p in c.get("parts") or [])), None)
    if first is None:
        return None
    done = sum(1 for c in contents for p in c.get("parts") or [] if "functionResponse" in p)
    if done >= 4:
        return None
    found = re.search(r"Workspace Directories:\*{0,2}\s*- ([^\n]+)",
                      json.dumps(req).replace("\\n", "\n"))
    where = found.group(1).strip() if found else os.getcwd()
    return {"functionCall": {"name": "write_file",
                             "args": {"file_path": os.path.join(where, f"part{done + 1}.py"),
                                      "content": f"PART = {done + 1}\n"}}}


def gemini_search_step(req):
    """The memsync memory_search call of a Gemini request to search memory
    (the tool as Gemini CLI declares it), or None once it was answered."""
    contents = req.get("contents") or []
    asked = next((" ".join(p.get("text", "") for p in c.get("parts") or [])
                  for c in reversed(contents) if c.get("role") == "user"
                  and any("text" in p for p in c.get("parts") or [])), "")
    at = asked.lower().find(SEARCH_TRIGGER)
    if at < 0 or any("functionResponse" in p for c in contents for p in c.get("parts") or []):
        return None
    names = [f.get("name", "") for t in req.get("tools") or []
             for f in t.get("functionDeclarations") or []]
    tool = next((n for n in names if n.endswith("memory_search")), None)
    if tool is None:
        return None
    return {"functionCall": {"name": tool, "args": {"query": asked[at + len(SEARCH_TRIGGER):]}}}


def gemini(self, req, stream):
    """Gemini CLI's model: write hello.py with its write_file tool when the
    person asks for a hello function, then answer REPLY; a request the CLI
    makes for itself (a JSON schema: routing, next speaker) gets `{}`."""
    n = self.next_count()
    words, after_tool = gemini_turns(req)
    if wants_json(req):
        parts = [{"text": "{}"}]
    elif SENTENCE_KEY in req:
        parts = [{"text": req[SENTENCE_KEY]}]
    elif gemini_four_files_step(req):
        parts = [gemini_four_files_step(req)]
    elif gemini_search_step(req):
        parts = [gemini_search_step(req)]
    elif not after_tool and WRITE_TRIGGER in words.lower():
        found = re.search(r"Workspace Directories:\*{0,2}\s*- ([^\n]+)", json.dumps(req).replace("\\n", "\n"))
        where = found.group(1).strip() if found else os.getcwd()
        parts = [{"functionCall": {"name": "write_file",
                                   "args": {"file_path": os.path.join(where, "hello.py"),
                                            "content": HELLO_PY}}}]
    else:
        parts = [{"text": f"{REPLY} (reply {n})"}]
    body = {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20,
                              "totalTokenCount": 120},
            "modelVersion": "fake-model"}
    if not stream:
        return self.send(200, body)
    self.send(200, f"data: {json.dumps(body)}\r\n\r\n".encode(), "text/event-stream")


Handler.gemini = gemini


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
