//! The command line's host: [`BufferedStdHost`], with a prompt for `read`
//! at a terminal.
//!
//! While `read` waits for a line typed at a terminal, `|: ` (as in
//! SWI-Prolog) says so; without it the top level looks hung.  The prompt
//! goes where the person sees it: to standard output when that is the
//! terminal, else to standard error when that is.  Input from a file or a
//! pipe gets no prompt, so piped sessions print exactly what they did.

use std::io::{IsTerminal, Write};

use crate::engine::{BufferedStdHost, Host};

/// What `read` shows while it waits for a line from a terminal.
pub const READ_PROMPT: &str = "|: ";

/// [`BufferedStdHost`], prompting `read` at a terminal.
#[derive(Debug, Default)]
pub struct TerminalHost(BufferedStdHost);

impl Host for TerminalHost {
    fn write(&mut self, text: &str) {
        self.0.write(text)
    }
    fn read_line(&mut self) -> Option<String> {
        self.0.read_line()
    }
    fn try_read_line(&mut self) -> std::io::Result<Option<String>> {
        self.0.try_read_line()
    }
    fn try_read_line_or_stop(
        &mut self,
        stop: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<Option<String>> {
        if !std::io::stdin().is_terminal() {
            return self.0.try_read_line_or_stop(stop);
        }
        let on_stdout = std::io::stdout().is_terminal();
        if on_stdout {
            let mut out = crate::stdio::Stdout;
            let _ = out.write_all(READ_PROMPT.as_bytes());
            let _ = out.flush();
        } else if std::io::stderr().is_terminal() {
            let _ = crate::stdio::flush();
            eprint!("{READ_PROMPT}");
        }
        let line = self.0.try_read_line_or_stop(stop);
        // A terminal that echoes the line typed ends it with the Enter:
        // what is printed next starts a line (an answer then needs no
        // line of its own first).
        if on_stdout && echoes() && matches!(&line, Ok(Some(l)) if l.ends_with('\n')) {
            crate::stdio::set_line_start();
        }
        line
    }
    fn tick(&mut self) {
        self.0.tick()
    }
    fn output_failed(&mut self) -> bool {
        self.0.output_failed()
    }
    fn flush(&mut self) {
        self.0.flush()
    }
}

/// Whether the terminal on standard input echoes what is typed.
fn echoes() -> bool {
    #[cfg(unix)]
    {
        use nix::sys::termios::{tcgetattr, LocalFlags};
        tcgetattr(std::io::stdin()).is_ok_and(|t| t.local_flags.contains(LocalFlags::ECHO))
    }
    #[cfg(not(unix))]
    {
        true
    }
}
