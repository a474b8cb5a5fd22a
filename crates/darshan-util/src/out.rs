//! Buffered stdout for the text tools: one big buffer, flushed in large
//! writes; a closed pipe ends the program quietly instead of panicking.

use std::io::Write;

pub struct Out {
    buf: Vec<u8>,
}

const FLUSH_AT: usize = 1 << 20;

impl Default for Out {
    fn default() -> Self {
        Self::new()
    }
}

impl Out {
    pub fn new() -> Self {
        Out { buf: Vec::with_capacity(FLUSH_AT + 64 * 1024) }
    }

    #[inline]
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    pub fn str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
        self.maybe_flush();
    }

    #[inline]
    pub fn maybe_flush(&mut self) {
        if self.buf.len() >= FLUSH_AT {
            self.flush();
        }
    }

    pub fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let mut so = std::io::stdout().lock();
        if let Err(e) = so.write_all(&self.buf).and_then(|_| so.flush()) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(141);
            }
            crate::say!("error writing output: {e}");
            std::process::exit(1);
        }
        self.buf.clear();
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        self.flush();
    }
}
