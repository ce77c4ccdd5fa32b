//! The documentation as a newcomer meets it: `README.md` and the book under
//! `docs/` (mdBook: `docs/book.toml`, `docs/src/SUMMARY.md`). Every link to a
//! local file resolves (its `#anchor` too), every page of the book is in its
//! table of contents, every flag of the command line is documented, and no page
//! points at files a user of the project does not have. Also the Markdown
//! helpers the other doc tests use (`walkthrough`, `api_reference`). mdBook
//! itself is not needed.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The repository's root.
pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES)
}

/// Reads a file of the repository (relative path), failing the test with its name.
pub(crate) fn read(rel: &str) -> String {
    std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every Markdown file of the repository (`README.md`, the book under `docs/`,
/// `schema/README.md`, ...) but build output (`target/`, `docs/book/`,
/// `node_modules/`), as paths relative to the root, sorted.
fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut out = Vec::new();
    // An explicit stack, not recursion: the tree is ours, but the habit is cheap.
    let mut dirs = vec![PathBuf::new()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(root.join(&dir)).unwrap() {
            let entry = entry.unwrap();
            let rel = dir.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                let skip = rel == Path::new("docs/book")
                    || ["target", "node_modules", ".git"]
                        .iter()
                        .any(|d| entry.file_name() == *d);
                if !skip {
                    dirs.push(rel);
                }
            } else if rel.extension().is_some_and(|e| e == "md") {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// The anchor mdBook gives a heading (as GitHub does for these texts): its text
/// lowercased, letters, digits, `-` and `_` kept, white space turned into `-`,
/// everything else dropped.
pub(crate) fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().collect::<String>())
            } else if c.is_whitespace() {
                Some("-".to_string())
            } else {
                None
            }
        })
        .collect()
}

/// Every anchor a page offers: its headings' ids (a repeated one gets `-1`,
/// `-2`, ... as mdBook numbers them) and the `id="..."` of its inline HTML.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = heading_id(&heading.take().unwrap_or_default());
                let mut id = base.clone();
                let mut n = 1;
                while out.contains(&id) {
                    id = format!("{base}-{n}");
                    n += 1;
                }
                out.insert(id);
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let mut rest: &str = &h;
                while let Some(at) = rest.find("id=\"") {
                    rest = &rest[at + 4..];
                    if let Some(end) = rest.find('"') {
                        out.insert(rest[..end].to_string());
                        rest = &rest[end..];
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The destinations of a page's links and images, in order.
fn link_targets(text: &str) -> Vec<String> {
    parser(text)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => Some(dest_url.to_string()),
            _ => None,
        })
        .collect()
}

/// The contents of a page's fenced code blocks whose info string starts with
/// `lang` (`sh` matches `sh` and `sh,ignore`, not `shell`), in order.
pub(crate) fn code_blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let first = info.split([',', ' ']).next().unwrap_or("");
                if first == lang {
                    current = Some(String::new());
                }
            }
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(c) = current.take() {
                    out.push(c);
                }
            }
            _ => {}
        }
    }
    out
}

/// `path` with `.` and `..` folded, without touching the file system; `None`
/// when it climbs above its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// What is wrong with one link of `from` (a path relative to the root), if
/// anything. Links with a scheme (`https:`, `mailto:`) are not ours to check,
/// and an empty one is an mdBook draft chapter.
fn check_link(from: &Path, target: &str) -> Option<String> {
    if target.is_empty() {
        return None;
    }
    let before_slash = target.split(['/', '#']).next().unwrap_or("");
    if before_slash.contains(':') {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (target, None),
    };
    let resolved = if path.is_empty() {
        from.to_path_buf()
    } else {
        let joined = from.parent().unwrap_or(Path::new("")).join(path);
        match normalize(&joined) {
            Some(p) => p,
            None => return Some(format!("`{target}` leaves the repository")),
        }
    };
    let full = repo_root().join(&resolved);
    if !full.exists() {
        return Some(format!("`{target}`: {} does not exist", resolved.display()));
    }
    match fragment {
        Some(f) if resolved.extension().is_some_and(|e| e == "md") => {
            let text = std::fs::read_to_string(&full).unwrap();
            (!anchors(&text).contains(f))
                .then(|| format!("`{target}`: {} has no anchor #{f}", resolved.display()))
        }
        _ => None,
    }
}

#[test]
fn every_local_link_in_the_docs_resolves() {
    let files = markdown_files();
    assert!(files.len() > 20, "the book's pages are missing: {files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(repo_root().join(file)).unwrap();
        for target in link_targets(&text) {
            checked += 1;
            if let Some(problem) = check_link(file, &target) {
                broken.push(format!("{}: {problem}", file.display()));
            }
        }
    }
    assert!(
        checked > 300,
        "only {checked} links found: is the parser reading the pages?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_checker_catches_what_it_should() {
    let from = Path::new("docs/src/cli.md");
    assert_eq!(check_link(from, "https://example.com/nowhere"), None);
    assert_eq!(check_link(from, "reports.md"), None);
    assert_eq!(
        check_link(from, "reports.md#baselines-fail-only-on-what-got-worse"),
        None
    );
    assert_eq!(check_link(from, "#exit-codes"), None);
    assert_eq!(check_link(from, "../../schema/report.schema.json"), None);
    assert!(check_link(from, "report.md")
        .unwrap()
        .contains("does not exist"));
    assert!(check_link(from, "reports.md#no-such-heading")
        .unwrap()
        .contains("no anchor"));
    assert!(check_link(from, "#no-such-heading")
        .unwrap()
        .contains("no anchor"));
    assert!(check_link(from, "../../../outside.md")
        .unwrap()
        .contains("leaves"));
    assert_eq!(heading_id("`sitescan scan`"), "sitescan-scan");
    assert_eq!(
        heading_id("Remote scan: let the service crawl (`sitescan remote scan`)"),
        "remote-scan-let-the-service-crawl-sitescan-remote-scan"
    );
    let ids = anchors("# A\n\n## Memory\n\n## Memory\n\n<a id=\"restarts\"></a>x\n");
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        ["a", "memory", "memory-1", "restarts"]
    );
}

#[test]
fn every_page_of_the_book_is_in_its_table_of_contents() {
    let summary = read("docs/src/SUMMARY.md");
    let listed: BTreeSet<String> = link_targets(&summary)
        .into_iter()
        .filter(|t| !t.is_empty())
        .map(|t| t.split('#').next().unwrap_or("").to_string())
        .collect();
    let missing: Vec<String> = markdown_files()
        .into_iter()
        .filter_map(|f| {
            let rel = f
                .strip_prefix("docs/src")
                .ok()?
                .to_string_lossy()
                .into_owned();
            (rel != "SUMMARY.md" && !listed.contains(&rel)).then_some(rel)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "pages under docs/src that SUMMARY.md does not list (mdBook would not render them): {missing:?}"
    );
    let toml = read("docs/book.toml");
    assert!(toml.contains("src = \"src\""), "{toml}");
}

#[test]
fn no_doc_points_outside_the_repository() {
    let mut found = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(repo_root().join(&file)).unwrap();
        for (n, line) in text.lines().enumerate() {
            for bad in ["../shared", "SPEC.md", "DESIGN.md"] {
                if line.contains(bad) {
                    found.push(format!("{}:{}: {bad}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the docs mention files a user does not have:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_readme_is_a_landing_page_into_the_book() {
    let readme = read("README.md");
    assert!(
        readme.len() < 12_000,
        "README.md has grown to {} bytes: move the details into docs/",
        readme.len()
    );
    let targets = link_targets(&readme);
    for page in [
        "docs/src/getting-started.md",
        "docs/src/cli.md",
        "docs/src/service/walkthrough.md",
        "docs/src/service/api.md",
        "docs/src/library.md",
    ] {
        assert!(
            targets.iter().any(|t| t == page),
            "README.md does not link to {page}"
        );
    }
}

/// The long flags `sitescan <args> --help` lists (`--help` itself left out).
fn flags_of(args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "sitescan {args:?} --help failed");
    let help = String::from_utf8(out.stdout).unwrap();
    let mut flags = Vec::new();
    for line in help.lines() {
        // Option lines start with spaces, then `-x, --long` or `--long`.
        let trimmed = line.trim_start();
        let long = trimmed
            .strip_prefix("--")
            .or_else(|| trimmed.split_once(", --").map(|(_, rest)| rest));
        if let Some(rest) = long.filter(|_| line.starts_with(' ')) {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if !name.is_empty() && name != "help" && name != "version" {
                flags.push(format!("--{name}"));
            }
        }
    }
    flags
}

/// Whether `text` names `flag` itself (not a longer flag it begins).
fn mentions(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(at, _)| {
        !text[at + flag.len()..].starts_with(|c: char| c.is_ascii_lowercase() || c == '-')
    })
}

#[test]
fn every_flag_of_the_command_line_is_documented() {
    let cases: [(&[&str], &[&str]); 13] = [
        (&["scan"], &["docs/src/cli.md"]),
        (&["report"], &["docs/src/cli.md"]),
        (&["rules"], &["docs/src/cli.md"]),
        (&["conformance"], &["docs/src/conformance.md"]),
        (&["remote", "scan"], &["docs/src/ci.md"]),
        (&["remote", "marks", "export"], &["docs/src/triage.md"]),
        (&["remote", "marks", "import"], &["docs/src/triage.md"]),
        (&["serve"], &["docs/src/service/serve.md"]),
        (&["worker"], &["docs/src/service/fleet.md"]),
        (
            &["admin", "account", "create"],
            &["docs/src/service/serve.md"],
        ),
        (&["admin", "key", "create"], &["docs/src/service/serve.md"]),
        (&["admin", "site", "add"], &["docs/src/service/serve.md"]),
        (&["admin", "user", "create"], &["docs/src/service/serve.md"]),
    ];
    let mut missing = Vec::new();
    for (args, pages) in cases {
        let flags = flags_of(args);
        assert!(
            !flags.is_empty(),
            "no flags read from `sitescan {args:?} --help`"
        );
        let text: String = pages.iter().map(|p| read(p)).collect();
        for flag in flags {
            if !mentions(&text, &flag) {
                missing.push(format!("sitescan {} {flag} (in {pages:?})", args.join(" ")));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags the docs do not mention:\n{}",
        missing.join("\n")
    );
    assert!(mentions("`--fail-on IMPACT`", "--fail-on"));
    assert!(!mentions("`--fail-on-new IMPACT`", "--fail-on"));
}
