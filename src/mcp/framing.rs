//! The stdio framing in front of the MCP server: every line the client sends
//! is checked before the SDK sees it, so a malformed one gets a JSON-RPC
//! error instead of silence, and a huge one costs no more than the cap.
//!
//! Owns: reading stdin and writing stdout. Must not: answer a well-formed
//! message (the SDK does) or let two writers interleave inside a line.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// Bytes of one message line at most; a longer line is answered with an
/// error and skipped without being held.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// One line of the client's input, read within `MAX_LINE`.
enum Line {
    Message(Vec<u8>),
    TooLong(usize),
}

/// Reads one line (without its end) keeping at most `MAX_LINE` bytes of it.
async fn read_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let (mut kept, mut total) = (Vec::new(), 0usize);
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok((total > 0).then(|| finish(kept, total)));
        }
        let (chunk, used) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1),
            None => (buf, buf.len()),
        };
        let room = MAX_LINE.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        total += chunk.len();
        let ended = used > chunk.len();
        input.consume(used);
        if ended {
            return Ok(Some(finish(kept, total)));
        }
    }
}

fn finish(kept: Vec<u8>, total: usize) -> Line {
    if total > kept.len() {
        Line::TooLong(total)
    } else {
        Line::Message(kept)
    }
}

/// The JSON-RPC error for a line the server cannot take, or `None` for a
/// message to hand on.
fn verdict(line: &[u8]) -> Option<Value> {
    let error = |id: Value, code: i64, message: String| json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Some(error(Value::Null, -32700, format!("parse error: {e}"))),
    };
    let Some(object) = value.as_object() else {
        return Some(error(
            Value::Null,
            -32600,
            "invalid request: send one JSON-RPC object per line".into(),
        ));
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    let is_message = object.get("jsonrpc") == Some(&json!("2.0"))
        && (object.get("method").is_some_and(Value::is_string)
            || object.contains_key("result")
            || object.contains_key("error"));
    (!is_message).then(|| {
        error(
            id,
            -32600,
            "invalid request: a JSON-RPC 2.0 message needs \"jsonrpc\": \"2.0\" and a \"method\""
                .into(),
        )
    })
}

/// Writes whole lines to stdout, one writer at a time.
type Out = Arc<Mutex<tokio::io::Stdout>>;

async fn write_line(out: &Out, line: &[u8]) -> std::io::Result<()> {
    let mut out = out.lock().await;
    out.write_all(line).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}

/// Copies the client's stdin to `to_server`, answering what is not a
/// message itself; ends (closing `to_server`) at the end of stdin.
pub async fn filter_input(mut to_server: impl AsyncWrite + Unpin, out: Out) -> std::io::Result<()> {
    let mut input = BufReader::new(tokio::io::stdin());
    while let Some(line) = read_line(&mut input).await? {
        let reply = match &line {
            Line::TooLong(bytes) => Some(json!({ "jsonrpc": "2.0", "id": null, "error": {
                "code": -32600,
                "message": format!("invalid request: a line of {bytes} bytes, over the {MAX_LINE}-byte limit; skipped"),
            }})),
            Line::Message(m) if m.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Message(m) => verdict(m),
        };
        match (reply, line) {
            (Some(reply), _) => write_line(&out, reply.to_string().as_bytes()).await?,
            (None, Line::Message(m)) => {
                to_server.write_all(&m).await?;
                to_server.write_all(b"\n").await?;
                to_server.flush().await?;
            }
            (None, Line::TooLong(_)) => {}
        }
    }
    to_server.shutdown().await
}

/// Copies the server's output to stdout a whole line at a time.
pub async fn forward_output(from_server: impl tokio::io::AsyncRead + Unpin, out: Out) {
    let mut lines = BufReader::new(from_server).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if write_line(&out, line.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// The shared stdout.
pub fn stdout() -> Out {
    Arc::new(Mutex::new(tokio::io::stdout()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_a_json_rpc_message_gets_an_error_with_its_id() {
        assert_eq!(verdict(b"not json").unwrap()["error"]["code"], -32700);
        assert_eq!(verdict(b"[1,2]").unwrap()["error"]["code"], -32600);
        let e = verdict(br#"{"id":7,"method":"tools/list"}"#).unwrap();
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        assert!(verdict(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).is_none());
        assert!(verdict(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).is_none());
    }
}
