//! Loading modules into the context: compiling a file once, and assuming a
//! module's clauses (parameters bound, `LOCAL` names fresh) at each
//! `M --o G`.

#[allow(unused_imports)]
use super::*;
use crate::logic::keys::compound_digest;
use crate::term::Heap;

/// The parsed items of a program text.
pub type Parsed = Rc<Vec<crate::syntax::Item>>;

impl Machine {
    // ----------------------------------------------------------------
    // Modules

    /// Compile (or fetch from the cache) the module in file `path`.
    pub fn module_at(
        &mut self,
        path: &std::path::Path,
        expected: Option<&str>,
    ) -> Result<Loaded, Vec<Error>> {
        self.module_at_parsed(path, expected).map(|(l, _)| l)
    }

    /// [`Machine::module_at`], with the file's parsed items when it was
    /// compiled now (`None` when the module came from the cache).
    pub fn module_at_parsed(
        &mut self,
        path: &std::path::Path,
        expected: Option<&str>,
    ) -> Result<(Loaded, Option<Parsed>), Vec<Error>> {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some((_, l)) = self.modules.iter().find(|(p, _)| *p == key) {
            return Ok((l.clone(), None));
        }
        let bytes = read_source(path, self.options.max_memory).map_err(|e| {
            vec![Error::load(format!(
                "cannot read `{}`: {e}",
                path.display()
            ))]
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                // Shown with the bad bytes replaced; the text before them is
                // unchanged, so the span points at the first one.
                let at = e.utf8_error().valid_up_to();
                let shown = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let file = self.sources.add(path.display().to_string(), shown);
                return Err(vec![Error::Load {
                    file: Some(file),
                    span: at..at + '\u{fffd}'.len_utf8(),
                    message: format!("`{}` is not UTF-8 text", path.display()),
                    notes: vec!["program files are read as UTF-8: convert this one \
                                 (its first bad byte is marked)"
                        .into()],
                }]);
            }
        };
        let file = self.sources.add(path.display().to_string(), text.clone());
        let (loaded, items) = self.compile_parsed(&text, file, &module_name_of(path), expected)?;
        self.modules.push((key, loaded.clone()));
        Ok((loaded, Some(items)))
    }

    /// Compile a program text that was added to the sources as `file`.
    pub fn compile_text(
        &mut self,
        text: &str,
        file: FileId,
        default_name: &str,
        expected: Option<&str>,
    ) -> Result<Loaded, Vec<Error>> {
        self.compile_parsed(text, file, default_name, expected)
            .map(|(l, _)| l)
    }

    /// [`Machine::compile_text`], with the parsed items (which the caller
    /// may keep, for warnings say, without parsing the text again).
    pub fn compile_parsed(
        &mut self,
        text: &str,
        file: FileId,
        default_name: &str,
        expected: Option<&str>,
    ) -> Result<(Loaded, Parsed), Vec<Error>> {
        let (items, syntax_errors) = syntax::parse_program(text);
        let items = Rc::new(items);
        let mut errors: Vec<Error> = syntax_errors
            .into_iter()
            .map(|e| Error::Syntax {
                file,
                span: e.span,
                message: e.message,
                expected: e.expected,
                hint: e.hint,
            })
            .collect();
        let (module, module_errors) = compile_module(
            &items,
            file,
            default_name,
            expected,
            &mut self.symbols,
            &mut self.binder_names,
            None,
        );
        errors.extend(module_errors.into_iter().map(|e| Error::Load {
            file: Some(file),
            span: e.span,
            message: e.message,
            notes: Vec::new(),
        }));
        if !errors.is_empty() {
            return Err(errors);
        }
        let loaded = self.register(module);
        self.keep_templates();
        Ok((loaded, items))
    }

    /// Give the templates of a compiled module their ids.
    fn register(&mut self, module: Module) -> Loaded {
        let tpl_ids = module
            .clauses
            .iter()
            .map(|c| {
                self.templates.push(c.template.clone());
                self.templates.len() as u32 - 1
            })
            .collect();
        Loaded {
            module: Rc::new(module),
            tpl_ids,
        }
    }

    /// Push the clauses of a loaded module into the context, with parameters
    /// bound to `args` and fresh local names; returns the entry range.
    pub fn assume_module(&mut self, loaded: &Loaded, args: &[Cell], node: u32) -> (u32, u32) {
        let env = self.ctx.envs.len() as u32;
        self.ctx.envs.extend_from_slice(args);
        let fresh;
        let loaded = if loaded.module.locals.is_empty() {
            loaded
        } else {
            // LOCAL names: fresh symbols for this loading, and the module's
            // clauses compiled again with them.
            let mut map = std::collections::HashMap::new();
            for l in &loaded.module.locals {
                let s = self.symbols.fresh(l);
                self.store.heap.set_sym_birth(s);
                map.insert(l.clone(), s);
            }
            let m = &loaded.module;
            let (module, _) = compile_module(
                &m.items,
                m.file,
                &m.name,
                None,
                &mut self.symbols,
                &mut self.binder_names,
                Some(&map),
            );
            let tpl = self.templates.len() as u32;
            fresh = self.register(module);
            self.own_templates_from(self.ctx.entries.len() as u32, tpl);
            &fresh
        };
        for name in &loaded.module.memo {
            self.memoize(name);
        }
        let first = self.ctx.entries.len() as u32;
        let mut shared = SharedTerms::default();
        for (i, c) in loaded.module.clauses.iter().enumerate().rev() {
            let tpl = loaded.tpl_ids[i];
            let e = self
                .ctx
                .push_entry(c.linear, Source::Template { tpl, env }, node);
            self.ctx.entries[e as usize].first_call = !c.linear && c.template.has_first_call();
            // A clause without variables is built on the heap once, here:
            // matching it then shares that term (see `try_item`).  Not one
            // whose head holds a binder term, which is matched up to bound
            // names (see `try_template`).
            if c.template.nslots == 0 && !c.template.binder_heads {
                if let Cell::Struct(_) = c.template.root {
                    let t = c.template.clone();
                    let start = self.store.heap.len();
                    if let Cell::Struct(a) = self.copy_template(&t, t.root, &mut []) {
                        let entry = &mut self.ctx.entries[e as usize];
                        entry.ground = a.0;
                        entry.fact = matches!(&t.alts[..], [alt] if alt.body.is_empty() && alt.head == t.root);
                        shared.share(&mut self.store.heap, start);
                    }
                }
            }
            if self.ctx.memo.on {
                self.identify(e);
            }
            // Alternatives are indexed last first, so the first (`R1` of
            // `R1 & R2`) is on top of its buckets and is tried first.
            for (k, (pred, keys)) in c.template.keys.iter().enumerate().rev() {
                self.ctx
                    .index(&mut self.store.trail, e, k as u32, *pred, keys);
            }
        }
        (first, self.ctx.entries.len() as u32)
    }

    /// Resolve a module name against the search path and load it.
    pub(super) fn find_and_load(&mut self, name: &str) -> Result<Loaded, RuntimeError> {
        match find_module(name, &self.options.search_path) {
            Ok(path) => self.module_at(&path, Some(name)).map_err(|errs| {
                let mut e = RuntimeError::new(format!("module `{name}` could not be loaded"));
                for err in &errs {
                    e.notes.push(crate::diagnostics::render(
                        &self.sources,
                        std::slice::from_ref(err),
                    ));
                }
                e
            }),
            Err(tried) => {
                let mut e = RuntimeError::new(format!("module `{name}` not found"));
                let dirs: Vec<String> = self
                    .options
                    .search_path
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect();
                e.notes.push(format!(
                    "looked for `{name}.lolli` and `{name}.ll` in: {}",
                    if dirs.is_empty() {
                        "(no directories)".to_string()
                    } else {
                        dirs.join(", ")
                    }
                ));
                let _ = tried;
                let known = crate::logic::module::available_modules(&self.options.search_path);
                if let Some(near) = crate::util::nearest(name, &known) {
                    e.notes.push(format!("did you mean `{near}`?"));
                }
                Err(e)
            }
        }
    }
}

/// The compound subterms of the ground facts built by one load, by
/// contents, so that equal subterms are one term: unifying a call with a
/// fact then meets equal arguments at equal addresses and stops there
/// (`s (s z)` in two facts of a board is one term).
#[derive(Default)]
struct SharedTerms {
    /// The hash of a compound's cells (functor, then arguments already
    /// shared) to the first compound seen with it.
    by_hash: std::collections::HashMap<u64, Addr, crate::term::cell::FastHash>,
    /// Scratch: the shared address of each compound of the block being
    /// shared, by offset in the block.
    moved: Vec<Option<Addr>>,
}

impl SharedTerms {
    /// Share the compound arguments of the ground term built at
    /// `cells[start..]` with those of the terms shared before.  The term's
    /// own cells stay where they are (a fact's heads are found at fixed
    /// offsets in its block); only argument pointers are redirected, so a
    /// duplicate subterm of this block is left unreferenced.  A fact
    /// without compound arguments (`item 3 10`) costs no lookup.
    ///
    /// Every compound argument kept gets its digest in the heap (see
    /// [`Heap::digests`]), so index keys hash a shared term in one step.
    fn share(&mut self, heap: &mut Heap, start: usize) {
        use std::collections::hash_map::Entry;
        use std::hash::BuildHasher;
        let end = heap.cells.len();
        self.moved.clear();
        self.moved.resize(end - start, None);
        // Arguments lie after their compound: from the end, every compound
        // is reached after the compounds it contains.
        for a in (start..end).rev() {
            let Cell::Functor(_, n) = heap.cells[a] else {
                continue;
            };
            let block = a..a + 1 + n as usize;
            for arg in &mut heap.cells[a + 1..block.end] {
                if let Cell::Struct(p) = *arg {
                    if let Some(Some(q)) = p.ix().checked_sub(start).map(|o| self.moved[o]) {
                        *arg = Cell::Struct(q);
                    }
                }
            }
            if a == start {
                break; // the term itself is not an argument
            }
            let cells = &heap.cells;
            let h = crate::term::cell::FastHash.hash_one(&cells[block.clone()]);
            match self.by_hash.entry(h) {
                Entry::Vacant(v) => {
                    v.insert(Addr(a as u32));
                }
                Entry::Occupied(o) => {
                    let q = o.get().ix();
                    // Another compound with the same hash (equal cells, or
                    // a collision: then this one is simply not shared).
                    if cells[q..q + block.len()] == cells[block] {
                        self.moved[a - start] = Some(Addr(q as u32));
                        continue;
                    }
                }
            }
            if let Some(d) = compound_digest(cells, &heap.digests, Addr(a as u32)) {
                heap.set_digest(Addr(a as u32), d);
            }
        }
    }
}

/// The bytes of the program file at `path`, read up to an eighth of the
/// memory limit `limit` (64 MiB at least): loading takes far more memory
/// than the text (a fact of 30 bytes takes about 2 KB), so a longer file
/// could not be loaded anyway, and one that never ends (`/dev/zero`, a
/// pipe left open) stops with an error instead of filling the memory.
pub(crate) fn read_source(
    path: &std::path::Path,
    limit: Option<usize>,
) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path)?;
    let Some(limit) = limit else {
        (&file).read_to_end(&mut bytes)?;
        return Ok(bytes);
    };
    let cap = (limit / 8).max(64 << 20);
    file.take(cap as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > cap {
        return Err(std::io::Error::other(format!(
            "it is longer than {cap} bytes, more than can be loaded within the \
             memory limit of {limit} bytes (--max-memory)"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::SharedTerms;
    use crate::logic::keys::{term_digest, term_hash};
    use crate::term::cell::SeqHash;
    use crate::term::{Addr, Cell, Heap, SymId};

    /// Push `f (s (s z)) (s z)` built as a fresh block (as a load copies a
    /// ground fact); its address.
    fn push_fact(cells: &mut Vec<Cell>) -> usize {
        let (f, s, z) = (SymId(100), SymId(101), Cell::Atom(SymId(102)));
        let at = cells.len();
        let a = at as u32;
        cells.extend_from_slice(&[
            Cell::Functor(f, 2),
            Cell::Struct(Addr(a + 3)),
            Cell::Struct(Addr(a + 7)),
            // s (s z)
            Cell::Functor(s, 1),
            Cell::Struct(Addr(a + 5)),
            Cell::Functor(s, 1),
            z,
            // s z
            Cell::Functor(s, 1),
            z,
        ]);
        at
    }

    #[test]
    fn equal_subterms_of_ground_facts_become_one_term() {
        let mut heap = Heap::new();
        heap.cells.push(Cell::Atom(SymId(0)));
        let mut shared = SharedTerms::default();
        let first = push_fact(&mut heap.cells);
        shared.share(&mut heap, first);
        let cells = &heap.cells;
        // Inside one fact: the `s z` in `s (s z)` is the second argument.
        assert_eq!(cells[first + 4], cells[first + 2]);
        let second = push_fact(&mut heap.cells);
        shared.share(&mut heap, second);
        let cells = &heap.cells;
        // Across facts: both arguments are the first fact's terms.
        assert_eq!(cells[second + 1], cells[first + 1]);
        assert_eq!(cells[second + 2], cells[first + 2]);
        // The facts' own top cells stay where they were built.
        assert_eq!(cells[second], Cell::Functor(SymId(100), 2));
    }

    #[test]
    fn shared_terms_hash_as_their_cells_do() {
        let mut heap = Heap::new();
        let first = push_fact(&mut heap.cells);
        // The same fact, not shared: its subterms have no digests.
        let plain = push_fact(&mut heap.cells);
        SharedTerms::default().share(&mut heap, first);
        for arg in 1..=2 {
            let with = heap.cells[first + arg];
            let without = heap.cells[plain + arg];
            let Cell::Struct(a) = with else {
                panic!("a compound argument")
            };
            assert!(heap.digest(a).is_some());
            assert!(heap.digest(Addr((plain + arg) as u32)).is_none());
            let mut stack = Vec::new();
            let hash = |c, digests: &[_], stack: &mut Vec<Cell>| {
                term_hash(&heap.cells, digests, &|c| c, c, stack)
            };
            let expected = hash(without, &[], &mut stack);
            assert!(expected.is_some());
            assert_eq!(hash(with, &heap.digests, &mut stack), expected);
            // A term's digest stands for it in a sum, shared or not.
            for (c, digests) in [(with, &heap.digests[..]), (without, &[][..])] {
                let d = term_digest(&heap.cells, digests, &|c| c, c, &mut stack).unwrap();
                let mut h = SeqHash::new();
                h.add_digest(d);
                assert_eq!(Some(h.finish()), expected);
            }
        }
        // `s (s z)` built around the shared `s z` hashes as the plain one.
        let at = Addr(heap.cells.len() as u32);
        heap.cells.push(Cell::Functor(SymId(101), 1));
        heap.cells.push(heap.cells[first + 2]);
        let mut stack = Vec::new();
        let around = term_hash(
            &heap.cells,
            &heap.digests,
            &|c| c,
            Cell::Struct(at),
            &mut stack,
        );
        let plain_one = term_hash(&heap.cells, &[], &|c| c, heap.cells[plain + 1], &mut stack);
        assert_eq!(around, plain_one);
        assert!(around.is_some());
        // Truncating the heap drops the digests above the new length.
        heap.truncate(first + 1, 0);
        assert!(heap.digests.len() <= first + 1);
    }
}
