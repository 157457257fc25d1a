//! What the machine does outside pure search: output and input for the
//! built-ins (through the host), proof-node and error helpers, and tracing.

#[allow(unused_imports)]
use super::*;

impl Machine {
    // ----------------------------------------------------------------
    // Tracing

    pub(crate) fn trace(
        &mut self,
        kind: crate::engine::trace::TraceKind,
        goal: Cell,
        detail: String,
    ) {
        use crate::engine::trace::TraceKind;
        // A line about a clause or resource used does not show its goal:
        // printing it with the trace's numbers would spend numbers on
        // variables no line shows.
        let goal = if matches!(kind, TraceKind::Clause | TraceKind::Resource) {
            self.show(goal)
        } else {
            self.trace_printer().message(goal)
        };
        let event = crate::engine::trace::TraceEvent {
            kind,
            depth: self.depth,
            goal,
            detail,
        };
        if let Some(t) = self.tracer.as_mut() {
            t.event(event);
        }
    }

    /// The clause of entry `e`, printed for a trace: as the search uses it
    /// (see [`Machine::template_text`]), then where it was written.
    pub(super) fn entry_text(&mut self, e: u32) -> String {
        let text = self.entry_clause_text(e);
        match self.ctx.entries[e as usize].source {
            Source::Template { tpl, .. } => match &self.templates[tpl as usize].origin {
                Some((file, span)) => format!(
                    "{text}  ({}:{})",
                    self.sources.name(*file),
                    self.sources.line(*file, span.start)
                ),
                None => text,
            },
            Source::Heap { .. } => text,
        }
    }

    /// The clause of entry `e` as the search uses it, printed for a
    /// message (see [`Machine::template_text`]).
    pub(super) fn entry_clause_text(&mut self, e: u32) -> String {
        match self.ctx.entries[e as usize].source {
            Source::Heap { clause, .. } => self.trace_printer().message(clause),
            Source::Template { tpl, env } => self
                .clause_text(tpl, env, true, |p, c| p.message(c))
                .unwrap_or_else(|| "a clause".to_string()),
        }
    }

    /// The clause of template `tpl` with the environment at `env` applied,
    /// printed by `print`: the module's parameters as they were bound at its
    /// loading, its `LOCAL` names as the constants of that loading
    /// (`key_1`), its own variables by their source names (numbered where
    /// the innermost query has the name, bound or not).  The clause is copied to the heap
    /// to be printed and the copy removed: nothing refers to the cells above
    /// the heap's top, and the copy binds nothing, so the machine is left as
    /// it was (also in the middle of a search).
    pub fn template_text(
        &mut self,
        tpl: u32,
        env: u32,
        print: impl FnOnce(&crate::pretty::Printer<'_>, Cell) -> String,
    ) -> Option<String> {
        self.clause_text(tpl, env, false, print)
    }

    /// [`Machine::template_text`], with the trace's variable numbers when
    /// `traced` (for a parameter left unbound).
    fn clause_text(
        &mut self,
        tpl: u32,
        env: u32,
        traced: bool,
        print: impl FnOnce(&crate::pretty::Printer<'_>, Cell) -> String,
    ) -> Option<String> {
        let (top, eigens) = (self.store.heap.len(), self.store.heap.eigens.len());
        let (t, c, slots) = self.copy_with_env(tpl, env)?;
        let text = {
            // The query's variables first (as `show` names them), then the
            // clause's variables and any parameter left unbound.
            let p = if traced {
                self.trace_printer()
            } else {
                self.printer()
            };
            // A clause variable never takes a name of the query, also one
            // bound by now (`X = a, spend Y` shows `spend X2 :- coin X2`).
            for (name, _) in self.query_names.last().into_iter().flatten() {
                p.reserve(name);
            }
            for (v, name) in slots.iter().zip(&t.slot_names) {
                if let Some(v) = v {
                    p.name_var(*v, name);
                }
            }
            // A clause assumed during search gets its quantifiers back
            // (see `Template::quantified`), in front, as written.
            let mut text = String::new();
            if t.quantified {
                for v in slots[t.env_len as usize..].iter().flatten() {
                    text.push_str(&format!("forall {} \\ ", p.term(*v)));
                }
            }
            text.push_str(&print(&p, c));
            text
        };
        self.store.heap.truncate(top, eigens);
        // Nothing made for the copy was numbered (each of its variables
        // has a name), but nothing may keep a number above the heap either.
        self.trace_vars.get_mut().forget_from(top as u32);
        Some(text)
    }

    /// The clause of template `tpl` copied to the heap with the
    /// environment at `env` applied and fresh variables for its own slots;
    /// returns the template, the copy and every slot's value.
    pub(crate) fn copy_with_env(
        &mut self,
        tpl: u32,
        env: u32,
    ) -> Option<(Rc<Template>, Cell, Vec<Option<Cell>>)> {
        let t = self.templates.get(tpl as usize)?.clone();
        let mut slots: Vec<Option<Cell>> = vec![None; t.nslots as usize];
        for (i, slot) in slots.iter_mut().enumerate().take(t.env_len as usize) {
            *slot = Some(*self.ctx.envs.get(env as usize + i)?);
        }
        let c = self.copy_template(&t, t.root, &mut slots);
        Some((t, c, slots))
    }

    // ----------------------------------------------------------------
    // Output and input used by built-ins

    /// Write `text` to the current output.  A `telling` file that cannot
    /// be written is an error (its message; the caller names the goal).
    /// Standard output's errors are the host's to handle (the command line
    /// reports them when it ends: [`crate::stdio`]).
    pub(crate) fn emit(&mut self, text: &str) -> Result<(), String> {
        if self.output == 0 {
            self.host.write(text);
        } else if let Some(f) = self.outputs.get_mut(self.output as usize - 1) {
            f.w.write_all(text.as_bytes()).map_err(|e| f.error(&e))?;
        }
        Ok(())
    }

    /// The text of the next term of the current input, for `read`: up to
    /// and including the `.` that ends it ([`crate::syntax::term_end`]),
    /// read a line (or a piece of a long line, [`read_piece`]) at a time as
    /// needed; the rest of the last line read is kept for the next `read`
    /// of the same input.  At the end of the input, the text left (a term
    /// without its `.`), or `Ok(None)` when it holds no token.  A file that
    /// cannot be read (not text, a device error) is an error, not an end.
    ///
    /// Input that never ends a term (`/dev/zero`, `yes`) meets the query's
    /// limits between pieces: Ctrl-C, `--timeout`, and the memory limit,
    /// which counts the text waiting for its `.`.  The errors have no goal;
    /// `read` names itself.
    pub(crate) fn next_term_text(&mut self) -> Result<Option<String>, RuntimeError> {
        let i = self.input as usize;
        if self.unread.len() <= i {
            self.unread.resize_with(i + 1, Unread::default);
        }
        loop {
            let u = &mut self.unread[i];
            if let Some(end) = u.find_end() {
                return Ok(Some(u.take(end)));
            }
            u.compact();
            let waiting = u.text.len();
            self.reading_limits(waiting)?;
            let piece = match self.read_piece() {
                // Stopped while waiting: the limits checked above say why.
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => {
                    r.map_err(|e| RuntimeError::new(format!("`read` cannot read its input: {e}")))?
                }
            };
            match piece {
                Some(text) => self.unread[i].text.push_str(&text),
                None => {
                    let u = &mut self.unread[i];
                    let left = u.take(u.rest().len());
                    return Ok((!crate::syntax::is_blank(&left)).then_some(left));
                }
            }
        }
    }

    /// The limits of the query, checked while `read` waits for the end of
    /// a term (as the search checks them, with the `waiting` bytes of text
    /// counted against the memory limit).
    fn reading_limits(&self, waiting: usize) -> Result<(), RuntimeError> {
        if self.interrupt.swap(false, Ordering::Relaxed) {
            return Err(RuntimeError::new("interrupted"));
        }
        if let Some(limit) = self.options.max_memory {
            if self.memory_used().saturating_add(waiting) > limit {
                return Err(memory_limit_error(limit).note(format!(
                    "`read` holds {waiting} bytes of input without the `.` that ends a term"
                )));
            }
        }
        if self.options.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(time_limit_error());
        }
        Ok(())
    }

    /// A line of the current input, or a piece of a long one
    /// (`Ok(None)` at its end).
    fn read_piece(&mut self) -> std::io::Result<Option<String>> {
        if self.input == 0 {
            let (interrupt, deadline) = (self.interrupt.clone(), self.options.deadline);
            let mut stop = || {
                interrupt.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d)
            };
            return self.host.try_read_line_or_stop(&mut stop);
        }
        let Some(r) = self.inputs.get_mut(self.input as usize - 1) else {
            return Ok(None);
        };
        read_piece(r.as_mut())
    }

    /// Make the file `name`, open on `w`, the current output; returns the
    /// output it replaces.
    pub(crate) fn push_output(&mut self, name: String, w: Box<dyn std::io::Write>) -> u32 {
        self.outputs.push(OutFile { name, w });
        let prev = self.output;
        self.output = self.outputs.len() as u32;
        prev
    }

    pub(crate) fn push_input(&mut self, r: Box<dyn std::io::BufRead>) -> u32 {
        self.inputs.push(r);
        let prev = self.input;
        self.input = self.inputs.len() as u32;
        prev
    }

    /// The goal of a `telling` succeeded: flush its file, so that what it
    /// wrote is there for a later `seeing` or `system`, and write to
    /// `output` (the enclosing output) again.  If the goal left no choice
    /// point (there are `choices` as when it started), nothing can write to
    /// the file again and it is closed; otherwise it stays open:
    /// backtracking into the goal writes to it again (`restore_top`), and
    /// flushes it when the goal then fails.  A file that cannot be flushed
    /// is an error (its message; the caller names the `telling` goal).
    pub(super) fn end_telling(&mut self, output: u32, choices: u32) -> Result<(), String> {
        let i = self.output as usize;
        self.output = output;
        let Some(f) = i.checked_sub(1).and_then(|i| self.outputs.get_mut(i)) else {
            return Ok(());
        };
        f.w.flush().map_err(|e| f.error(&e))?;
        if self.choices.len() <= choices as usize && i == self.outputs.len() {
            // Flushed: dropping the writer only closes it.
            self.outputs.pop();
        }
        Ok(())
    }

    /// The goal of a `seeing` succeeded: read from `input` again, closing
    /// the file if the goal left no choice point (as [`Self::end_telling`]).
    pub(super) fn end_seeing(&mut self, input: u32, choices: u32) {
        let i = self.input as usize;
        if self.choices.len() <= choices as usize && i == self.inputs.len() {
            self.inputs.pop();
            self.unread.truncate(i);
        }
        self.input = input;
    }

    /// Close every file `telling` and `seeing` opened (when no query runs:
    /// nothing can read or write them any more).
    pub(super) fn close_files(&mut self) {
        self.outputs.clear();
        self.inputs.clear();
        self.unread.truncate(1);
        self.output = 0;
        self.input = 0;
    }

    /// After the `telling` goal `goal` (from entry `origin`) succeeds,
    /// write to `output` again ([`Self::end_telling`]).
    pub(crate) fn then_restore_output(&mut self, output: u32, goal: Cell, origin: u32) {
        let choices = self.choices.len() as u32;
        let action = Action::RestoreOutput {
            output,
            choices,
            goal,
            origin,
        };
        self.cont = self.push_frame(action, self.cont);
    }

    pub(crate) fn then_restore_input(&mut self, input: u32) {
        let choices = self.choices.len() as u32;
        self.cont = self.push_frame(Action::RestoreInput { input, choices }, self.cont);
    }

    pub(crate) fn then_timing(&mut self, var: Cell) {
        let start = self.epoch.elapsed().as_millis() as u32;
        self.cont = self.push_frame(Action::TimingEnd { start, var }, self.cont);
    }

    pub(crate) fn then_solve(&mut self, goal: Cell, parent: u32, origin: u32) {
        self.push_solve(goal, parent, origin);
    }

    /// Prove `goal` next, keeping only its first proof (`once`).
    pub(crate) fn then_solve_once(&mut self, goal: Cell, parent: u32, origin: u32) {
        let start = self.scope_start();
        let cut = Action::Cut {
            choice: start.choices,
            first: self.ctx.entries.len() as u32,
            trail: start.trail,
            buckets: start.buckets,
        };
        self.cont = self.push_frame(cut, self.cont);
        self.push_solve(goal, parent, origin);
    }

    /// On backtracking, bind `x` to `next`, then to each integer after it
    /// up to `high`, recording `goal` as proved by a built-in each time
    /// (`between` with an unbound third argument).
    pub(crate) fn push_between(&mut self, goal: Cell, x: Cell, next: i64, high: i64, parent: u32) {
        self.push_choice(Alternative::Between {
            goal,
            x,
            next,
            high,
            parent,
        });
    }

    pub(crate) fn proof_node(&mut self, parent: u32, rule: Rule, goal: Cell) -> u32 {
        self.node(parent, rule, goal, 0, 0)
    }

    pub(crate) fn error_at(
        &self,
        message: impl Into<String>,
        goal: Cell,
        origin: u32,
    ) -> RuntimeError {
        self.goal_error(message, goal, origin)
    }

    /// Flush files opened by `telling` (at the end of a query).
    pub fn flush_outputs(&mut self) {
        for f in self.outputs.iter_mut() {
            let _ = f.w.flush();
        }
    }

    /// Replace the host (for example to capture output).
    pub fn set_host(&mut self, host: Box<dyn Host>) {
        self.host = host;
    }
}

/// Backtracking is leaving the `telling` scopes of the outputs numbered
/// above `output` (their goals failed, or the choice restored is older
/// than them): flush their files, as [`Machine::end_telling`] does when a
/// goal succeeds.  A file already flushed has nothing to write.  The first
/// file that cannot be flushed leaves its error in `error` (the machine's
/// `output_error`), unless one is already there.
#[cold]
#[inline(never)]
pub(super) fn flush_telling_files(
    outputs: &mut [OutFile],
    output: u32,
    error: &mut Option<RuntimeError>,
) {
    for f in outputs.iter_mut().skip(output as usize) {
        if let Err(e) = f.w.flush() {
            if error.is_none() {
                *error = Some(
                    RuntimeError::new(f.error(&e))
                        .note("the output of a `telling` goal that failed could not be written"),
                );
            }
        }
    }
}

/// A file `telling` opened, as the current output or an enclosing one.
pub(crate) struct OutFile {
    /// The name it was opened with (for messages).
    name: String,
    /// The open file, buffered.
    w: Box<dyn std::io::Write>,
}

impl OutFile {
    /// The message for an error writing to this file.
    fn error(&self, e: &std::io::Error) -> String {
        format!("cannot write to `{}`: {e}", self.name)
    }
}

/// Text read from one input (a line at a time) that `read` has not
/// consumed: `text[pos..]`.  Invariant: `pos <= text.len()` and falls on a
/// character boundary.  Consuming a term moves `pos` (no copy of the rest,
/// so reading a long line of terms costs its length once); the consumed
/// prefix is dropped before another line is appended.  `resume` says how
/// far `text[pos..]` was searched for the end of a term, so that a term
/// spread over many lines costs each line once.
#[derive(Debug, Default)]
pub(super) struct Unread {
    text: String,
    pos: usize,
    /// Offsets relative to `pos`; reset when `pos` moves.
    resume: crate::syntax::Resume,
}

impl Unread {
    /// The length of the next term in what is left, up to its `.`, if
    /// the text read so far ends it.
    fn find_end(&mut self) -> Option<usize> {
        crate::syntax::term_end_resuming(&self.text[self.pos..], &mut self.resume)
    }

    /// What is left.
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    /// The next `len` bytes of what is left, consumed.
    fn take(&mut self, len: usize) -> String {
        let taken = self.text[self.pos..self.pos + len].to_string();
        self.pos += len;
        self.resume = crate::syntax::Resume::default();
        taken
    }

    /// Drop the consumed prefix.
    fn compact(&mut self) {
        self.text.drain(..self.pos);
        self.pos = 0;
    }
}

/// How much of a line [`read_piece`] takes at a time.
const PIECE: usize = 64 * 1024;

/// The next line of `r` (with its line break), or the next 64 KB of a
/// longer one (cut after a whole character), so that input with no line
/// break (`/dev/zero`) arrives in pieces and the reader can check its
/// limits between them; `Ok(None)` at the end.  Text that is not UTF-8 is
/// an error, as `read_line` makes it.
pub(crate) fn read_piece(r: &mut dyn std::io::BufRead) -> std::io::Result<Option<String>> {
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        // Past the limit, a byte at a time to finish a character.
        let room = PIECE.saturating_sub(bytes.len()).max(1);
        let (n, line_end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) if i < room => (i + 1, true),
            _ => (buf.len().min(room), false),
        };
        bytes.extend_from_slice(&buf[..n]);
        r.consume(n);
        if line_end {
            break;
        }
        if bytes.len() >= PIECE {
            match std::str::from_utf8(&bytes) {
                // A character cut short: read on to its end.
                Err(e) if e.error_len().is_none() && bytes.len() < PIECE + 4 => {}
                _ => break,
            }
        }
    }
    if bytes.is_empty() {
        return Ok(None);
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}
