//! Loading modules into the context: compiling a file once, and assuming a
//! module's clauses (parameters bound, `LOCAL` names fresh) at each
//! `M --o G`.

#[allow(unused_imports)]
use super::*;

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
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![Error::load(format!(
                "cannot read `{}`: {e}",
                path.display()
            ))]
        })?;
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
        Ok((self.register(module), items))
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
            fresh = self.register(module);
            &fresh
        };
        for name in &loaded.module.memo {
            self.memoize(name);
        }
        let first = self.ctx.entries.len() as u32;
        for (i, c) in loaded.module.clauses.iter().enumerate().rev() {
            let tpl = loaded.tpl_ids[i];
            let e = self
                .ctx
                .push_entry(c.linear, Source::Template { tpl, env }, node);
            // A clause without variables is built on the heap once, here:
            // matching it then shares that term (see `try_item`).
            if c.template.nslots == 0 {
                if let Cell::Struct(_) = c.template.root {
                    let t = c.template.clone();
                    if let Cell::Struct(a) = self.copy_template(&t, t.root, &mut []) {
                        self.ctx.entries[e as usize].ground = a.0;
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
