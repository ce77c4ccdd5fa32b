//! The Hunspell dictionary behind the `spelling` rule.
//!
//! The rules crate does no I/O, so the engine finds Debian's `hunspell-en-us`
//! files (`en_US.aff` and `en_US.dic`), reads them and installs them with
//! [`sitescan_rules::quality::spelling::install_dictionary`]. When they are missing
//! the rule stays off, and [`DictionaryStatus::note`] gives the sentence for the
//! report's notes, so a scan never pretends it checked spelling.

use std::path::{Path, PathBuf};

use sitescan_rules::quality::spelling;

/// Environment variable naming an extra folder to look for `en_US.aff` / `.dic` in
/// (searched first).
pub const HUNSPELL_DIR_ENV: &str = "SITESCAN_HUNSPELL_DIR";

/// Where distributions install Hunspell dictionaries (Debian's `hunspell-en-us`
/// uses the first).
pub const DEFAULT_HUNSPELL_DIRS: &[&str] = &[
    "/usr/share/hunspell",
    "/usr/share/myspell/dicts",
    "/usr/share/myspell",
    "/usr/local/share/hunspell",
];

/// Base name of the dictionary files.
pub const DICTIONARY_NAME: &str = "en_US";

/// What became of the dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DictionaryStatus {
    /// Installed from this `.dic` file (or earlier in this process).
    Installed(PathBuf),
    /// No `en_US.aff` + `en_US.dic` pair in any of these folders.
    Missing(Vec<PathBuf>),
    /// Found but unreadable or unparsable.
    Invalid {
        /// The `.dic` file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

impl DictionaryStatus {
    /// The report note when spelling could not be checked; `None` when it could.
    pub fn note(&self) -> Option<String> {
        match self {
            DictionaryStatus::Installed(_) => None,
            DictionaryStatus::Missing(dirs) => Some(format!(
                "spelling was not checked: no Hunspell {DICTIONARY_NAME} dictionary found in {} (install Debian's hunspell-en-us, or set {HUNSPELL_DIR_ENV})",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            DictionaryStatus::Invalid { path, reason } => Some(format!(
                "spelling was not checked: the dictionary {} could not be loaded: {reason}",
                path.display()
            )),
        }
    }
}

/// Finds and installs the dictionary from `$SITESCAN_HUNSPELL_DIR` or the default
/// folders. Cheap after the first success (the dictionary is process-wide).
pub fn install_spelling_dictionary() -> DictionaryStatus {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os(HUNSPELL_DIR_ENV) {
        dirs.push(PathBuf::from(d));
    }
    dirs.extend(DEFAULT_HUNSPELL_DIRS.iter().map(PathBuf::from));
    install_from(&dirs)
}

/// Installs the first `en_US.aff` + `en_US.dic` pair found in `dirs`.
pub fn install_from(dirs: &[PathBuf]) -> DictionaryStatus {
    if spelling::dictionary_installed() {
        // Installed earlier in this process: don't read the files again.
        if let Some((_, dic)) = dirs.iter().find_map(|d| pair_in(d)) {
            return DictionaryStatus::Installed(dic);
        }
    }
    load_with(dirs, spelling::install_dictionary)
}

/// Finds the first pair in `dirs`, reads it and hands its text to `install`.
/// Separate from [`install_from`] so tests can load a dictionary without making
/// it the process-wide one every other test's scans would then use.
fn load_with(
    dirs: &[PathBuf],
    install: impl FnOnce(&str, &str) -> Result<(), String>,
) -> DictionaryStatus {
    let Some((aff, dic)) = dirs.iter().find_map(|d| pair_in(d)) else {
        return DictionaryStatus::Missing(dirs.to_vec());
    };
    let read = |p: &Path| {
        std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let result = read(&aff)
        .and_then(|a| read(&dic).map(|d| (a, d)))
        .and_then(|(a, d)| install(&a, &d));
    match result {
        Ok(()) => {
            tracing::debug!(dictionary = %dic.display(), "spelling dictionary installed");
            DictionaryStatus::Installed(dic)
        }
        Err(reason) => DictionaryStatus::Invalid { path: dic, reason },
    }
}

fn pair_in(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let aff = dir.join(format!("{DICTIONARY_NAME}.aff"));
    let dic = dir.join(format!("{DICTIONARY_NAME}.dic"));
    (aff.is_file() && dic.is_file()).then_some((aff, dic))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_dictionary_gives_a_note() {
        let dir = std::env::temp_dir().join(format!("sitescan-no-dict-{}", std::process::id()));
        let status = install_from(std::slice::from_ref(&dir));
        assert_eq!(status, DictionaryStatus::Missing(vec![dir.clone()]));
        let note = status.note().unwrap();
        assert!(note.starts_with("spelling was not checked"), "{note}");
        assert!(note.contains("hunspell-en-us"), "{note}");
    }

    #[test]
    fn a_dictionary_pair_is_installed() {
        let dir = std::env::temp_dir().join(format!("sitescan-dict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("en_US.aff"), "SET UTF-8\n").unwrap();
        std::fs::write(dir.join("en_US.dic"), "2\nhello\nworld\n").unwrap();
        // Parsed but not installed: this two-word dictionary must not become the
        // one the other tests' scans in this process check spelling with.
        let mut parsed = None;
        let status = load_with(std::slice::from_ref(&dir), |a, d| {
            parsed = Some(spelling::parse_dictionary(a, d)?.check("hello"));
            Ok(())
        });
        assert_eq!(status, DictionaryStatus::Installed(dir.join("en_US.dic")));
        assert!(status.note().is_none());
        assert_eq!(parsed, Some(true));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
