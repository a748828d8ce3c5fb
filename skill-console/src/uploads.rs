//! Uploaded contracts on disk: a private folder per console (mode 0700 on Unix) under the
//! temporary directory, a private folder per review inside it, files readable by this user
//! only (0600). A review's folder goes when the review is over, the console's when the
//! console is dropped or [`ConsoleState::remove_uploads`](crate::ConsoleState::remove_uploads)
//! is called; folders left by a console that died (its process no longer runs) are removed
//! when the next console starts.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Start of the name of a console's upload folder: `toolwright-uploads-<pid>-<random>`.
const ROOT_PREFIX: &str = "toolwright-uploads-";

/// A console's upload folder.
#[derive(Debug)]
pub(crate) struct Root {
    dir: PathBuf,
    next: AtomicU64,
}

impl Root {
    /// Makes a fresh private folder in `parent`, first removing the folders of consoles
    /// whose process is gone.
    pub(crate) fn create(parent: &Path) -> std::io::Result<Self> {
        let dir = parent.join(format!(
            "{ROOT_PREFIX}{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        private_dir(&dir)?;
        sweep_stale(parent, &dir);
        Ok(Self {
            dir,
            next: AtomicU64::new(0),
        })
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// Removes the folder and everything in it.
    pub(crate) fn remove(&self) {
        match std::fs::remove_dir_all(&self.dir) {
            Ok(()) => tracing::debug!(path = %self.dir.display(), "upload folder removed"),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                tracing::warn!(path = %self.dir.display(), %err, "upload folder not removed")
            }
        }
    }

    /// Writes one review's files into a private folder of their own, under names that
    /// stay distinct once cleaned.
    pub(crate) fn save(&self, files: Vec<(String, Vec<u8>)>) -> std::io::Result<UploadedFiles> {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let dir = self.dir.join(format!("review-{n}"));
        private_dir(&dir)?;
        let folder = Folder(dir.clone());
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        let cleaned = saved_names(&names);
        let mut saved = Vec::with_capacity(files.len());
        for ((name, bytes), clean) in files.into_iter().zip(cleaned) {
            let path = dir.join(&clean);
            private_file(&path, &bytes)?;
            saved.push(UploadedFile {
                name,
                saved_as: clean,
                path,
            });
        }
        Ok(UploadedFiles(Arc::new(Saved {
            folder,
            files: saved,
        })))
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        self.remove();
    }
}

/// One uploaded file on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadedFile {
    /// The name the browser sent.
    pub name: String,
    /// The name it was saved under (its last component, cleaned, made distinct).
    pub saved_as: String,
    /// Where it is.
    pub path: PathBuf,
}

/// The files of one review's upload, in a private folder removed once the last clone is
/// dropped (when the review is over).
#[derive(Debug, Clone)]
pub struct UploadedFiles(Arc<Saved>);

#[derive(Debug)]
struct Saved {
    folder: Folder,
    files: Vec<UploadedFile>,
}

#[derive(Debug)]
struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_dir_all(&self.0) {
            if err.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(path = %self.0.display(), %err, "review upload folder not removed");
            }
        }
    }
}

impl PartialEq for UploadedFiles {
    fn eq(&self, other: &Self) -> bool {
        self.0.folder.0 == other.0.folder.0
    }
}

impl Eq for UploadedFiles {}

impl UploadedFiles {
    /// The files, in the order they were sent.
    pub fn files(&self) -> &[UploadedFile] {
        &self.0.files
    }

    /// The folder holding them.
    pub fn folder(&self) -> &Path {
        &self.0.folder.0
    }

    /// What to review: the file when there is one, else the folder (a contract with its
    /// standard form and references).
    pub fn review_path(&self) -> &Path {
        match self.0.files.as_slice() {
            [one] => &one.path,
            _ => self.folder(),
        }
    }
}

/// The names files sent under `names` are saved under, in order: each name's last
/// component cleaned ([`clean_name`]), made distinct from those before it.
pub(crate) fn saved_names(names: &[&str]) -> Vec<String> {
    let mut taken = HashSet::new();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| distinct(clean_name(name, i), &mut taken))
        .collect()
}

/// A file name reduced to a safe last component (`../../x y.md` → `x_y.md`).
pub(crate) fn clean_name(name: &str, index: usize) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = last
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let clean = clean.trim_start_matches('.');
    if clean.is_empty() {
        format!("upload-{index}.txt")
    } else {
        clean.to_string()
    }
}

/// `name` if not yet taken, else `stem-2.ext`, `stem-3.ext`, … (case-insensitively distinct,
/// for file systems that fold case).
fn distinct(name: String, taken: &mut HashSet<String>) -> String {
    if taken.insert(name.to_lowercase()) {
        return name;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_string(), format!(".{ext}")),
        _ => (name.clone(), String::new()),
    };
    (2..)
        .map(|n| format!("{stem}-{n}{ext}"))
        .find(|candidate| taken.insert(candidate.to_lowercase()))
        .unwrap_or(name)
}

fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    // `create` (not `create_all`) fails on an existing path: nobody else's folder or link
    // is ever reused.
    builder.create(dir)
}

fn private_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
}

/// Removes the upload folders in `parent` of consoles whose process is gone (and that
/// belong to this user), keeping `own`.
fn sweep_stale(parent: &Path, own: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    #[cfg(unix)]
    let me = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(own).map(|m| m.uid()).ok()
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path == own {
            continue;
        }
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(ROOT_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if Some(meta.uid()) != me {
                continue;
            }
        }
        if process_alive(pid) {
            continue;
        }
        match std::fs::remove_dir_all(&path) {
            Ok(()) => {
                tracing::info!(path = %path.display(), pid, "upload folder of a console that stopped removed")
            }
            Err(err) => {
                tracing::warn!(path = %path.display(), %err, "stale upload folder not removed")
            }
        }
    }
}

/// Whether process `pid` still runs (Linux: `/proc`; elsewhere assumed to, so nothing of a
/// running console is ever removed).
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc_root = Path::new("/proc");
    if proc_root.join("self").exists() {
        return proc_root.join(pid.to_string()).exists();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_names_stay_in_their_folder() {
        assert_eq!(clean_name("../../etc/passwd", 0), "passwd");
        assert_eq!(clean_name("my contract.md", 0), "my_contract.md");
        assert_eq!(clean_name("..", 3), "upload-3.txt");
        assert_eq!(clean_name("C:\\x\\.hidden", 1), "hidden");
    }

    #[test]
    fn names_that_clean_alike_stay_distinct() {
        let mut taken = HashSet::new();
        let names: Vec<String> = ["a b.md", "a_b.md", "x/a?b.md", "A_B.md", "noext", "noext"]
            .iter()
            .enumerate()
            .map(|(i, n)| distinct(clean_name(n, i), &mut taken))
            .collect();
        assert_eq!(
            names,
            ["a_b.md", "a_b-2.md", "a_b-3.md", "A_B-4.md", "noext", "noext-2"]
        );
    }
}
