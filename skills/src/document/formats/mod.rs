//! Reading a contract file into the plain text the clause parser understands, whatever the
//! file's format: Word (`.docx`, with its automatic numbering resolved to the numbers a
//! reader sees), PDF (the text layer, without page headers, footers and page numbers), or
//! text (`.md`, `.txt`, `.json`, UTF-8 or UTF-16 with a byte-order mark).
//!
//! The format is decided by the file's first bytes, not its name, so a renamed file is still
//! read for what it is; a file whose name promises a format its bytes do not have is an
//! error. Every failure is a [`FormatError`] naming the file and what is wrong with it; no
//! input makes the reader panic. What reading may cost (bytes inflated, nesting, operators
//! per PDF page, lines) is bounded by one document [`budget`]; a document over it is refused
//! with [`FormatErrorKind::OverBudget`] before the work is done.

pub mod budget;
mod docx;
#[cfg(test)]
mod hostile;
mod numbering;
mod pdf;

pub use budget::{Limit, OverBudget};

use std::path::{Path, PathBuf};

/// The largest document read, in bytes (50 MiB): a contract is far smaller, and a limit
/// keeps a wrong file (a disk image, a video) from filling memory.
pub const MAX_DOCUMENT_BYTES: u64 = 50 * 1024 * 1024;

/// File extensions read as contracts (lower case, without the dot).
pub const DOCUMENT_EXTENSIONS: [&str; 5] = ["md", "txt", "json", "docx", "pdf"];

/// The formats a document can be read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentFormat {
    /// Plain text or Markdown.
    Text,
    /// Document JSON (text; the caller parses it).
    Json,
    /// Word 2007+ (`.docx`, Office Open XML).
    Docx,
    /// PDF with a text layer.
    Pdf,
}

/// Why a file could not be read as a document.
#[derive(Debug, thiserror::Error)]
#[error("cannot read document `{}`: {kind}", path.display())]
pub struct FormatError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    #[source]
    pub kind: FormatErrorKind,
}

/// What is wrong with a document file.
#[derive(Debug, thiserror::Error)]
pub enum FormatErrorKind {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds no text at all.
    #[error("empty document: the file has no text to review")]
    Empty,
    /// The file is larger than [`MAX_DOCUMENT_BYTES`].
    #[error("the file is {size} bytes, over the limit of {limit} bytes for a document")]
    TooLarge {
        /// The file's size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is binary data, not text, and not a format that is read.
    #[error("binary file in no supported format (expected .docx, .pdf, or UTF-8 text: .md, .txt, .json)")]
    Binary,
    /// The file looks like text but is not valid UTF-8.
    #[error("text is not UTF-8 (invalid byte at offset {offset}); save it as UTF-8")]
    NotUtf8 {
        /// Where the first invalid byte is.
        offset: usize,
    },
    /// A format that is recognised but not read (legacy `.doc`, a spreadsheet, ...).
    #[error("{0}")]
    Unsupported(String),
    /// A Word file that cannot be read.
    #[error("corrupt Word document: {0}")]
    CorruptDocx(String),
    /// A PDF that cannot be read.
    #[error("corrupt PDF: {0}")]
    CorruptPdf(String),
    /// A PDF that needs a password to open.
    #[error("encrypted PDF: it needs a password to open; save an unprotected copy first")]
    EncryptedPdf,
    /// A PDF whose pages are images with no text layer.
    #[error("scanned PDF: its {pages} page(s) are images with no text layer; run OCR on it (e.g. `ocrmypdf`) first")]
    ScannedPdf {
        /// Pages in the document.
        pages: usize,
    },
    /// Reading the document would take more than the document budget allows (bytes
    /// inflated, nesting, operators per page, lines): refused before that work is done.
    #[error("{0}")]
    OverBudget(#[from] OverBudget),
    /// The path is not a regular file (a named pipe, a device, a socket, a folder): refused
    /// before it is opened, since opening a pipe with no writer waits for ever and a device
    /// may never end.
    #[error("it is {found}, not a regular file; expected a contract file (.docx, .pdf, .md, .txt or .json)")]
    NotAFile {
        /// What the path is ("a named pipe (FIFO)", "a character device", ...).
        found: &'static str,
    },
    /// The name says one format, the bytes another.
    #[error("the file is named .{extension} but is not a {expected} file")]
    WrongExtension {
        /// The file's extension.
        extension: String,
        /// The format the extension names.
        expected: &'static str,
    },
}

impl FormatErrorKind {
    /// Whether the document was refused for its size or cost (the file over
    /// [`MAX_DOCUMENT_BYTES`], or over the document budget) rather than for what it is: a
    /// server answers these "too large" (HTTP 413) where other errors are unprocessable
    /// input (422).
    pub fn is_over_limit(&self) -> bool {
        matches!(
            self,
            FormatErrorKind::TooLarge { .. } | FormatErrorKind::OverBudget(_)
        )
    }
}

/// What a file that is not a regular file is, in words for an error ("a named pipe
/// (FIFO)", "a character device", "a folder", ...); `None` for a regular file.
pub fn not_a_regular_file(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if file_type.is_char_device() {
            return Some("a character device");
        }
        if file_type.is_block_device() {
            return Some("a block device");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a file")
}

/// Checks, without opening it, that `path` is a regular file (a symbolic link is followed):
/// a named pipe with no writer would make the read wait for ever, a device may never end.
/// The error names the path and what it is ([`FormatErrorKind::NotAFile`]), or the I/O
/// error of a path that cannot be looked at.
pub fn require_regular_file(path: &Path) -> Result<(), FormatError> {
    let fail = |kind: FormatErrorKind| FormatError {
        path: path.to_path_buf(),
        kind,
    };
    let metadata = std::fs::metadata(path).map_err(|e| fail(e.into()))?;
    match not_a_regular_file(metadata.file_type()) {
        None => Ok(()),
        Some(found) => Err(fail(FormatErrorKind::NotAFile { found })),
    }
}

/// Reads a document file into plain text for the clause parser; see the module doc for
/// the formats. Returns the text and the format it was read from. Only a regular file is
/// opened ([`require_regular_file`]).
pub fn read_document_text(path: impl AsRef<Path>) -> Result<(String, DocumentFormat), FormatError> {
    let path = path.as_ref();
    let fail = |kind: FormatErrorKind| FormatError {
        path: path.to_path_buf(),
        kind,
    };
    require_regular_file(path)?;
    let file = std::fs::File::open(path).map_err(|e| fail(e.into()))?;
    let metadata = file.metadata().map_err(|e| fail(e.into()))?;
    // Swapped for something else between the look and the open: still refused.
    if let Some(found) = not_a_regular_file(metadata.file_type()) {
        return Err(fail(FormatErrorKind::NotAFile { found }));
    }
    let size = metadata.len();
    if size > MAX_DOCUMENT_BYTES {
        return Err(fail(FormatErrorKind::TooLarge {
            size,
            limit: MAX_DOCUMENT_BYTES,
        }));
    }
    // The size a file reports is not a bound (a file still being written grows past it):
    // reading stops one byte past the limit.
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_DOCUMENT_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| fail(e.into()))?;
    text_from_bytes(path, &bytes)
}

/// Reads a document file into plain text for the clause parser (the text only).
pub fn read_text(path: impl AsRef<Path>) -> Result<String, FormatError> {
    read_document_text(path).map(|(text, _)| text)
}

/// Reads a document already in memory; `path` gives the name (its extension says what the
/// bytes should be) and is named in errors.
pub fn text_from_bytes(path: &Path, bytes: &[u8]) -> Result<(String, DocumentFormat), FormatError> {
    decode(path, bytes).map_err(|kind| FormatError {
        path: path.to_path_buf(),
        kind,
    })
}

fn decode(path: &Path, bytes: &[u8]) -> Result<(String, DocumentFormat), FormatErrorKind> {
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(FormatErrorKind::TooLarge {
            size: bytes.len() as u64,
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let wrong = |expected: &'static str| FormatErrorKind::WrongExtension {
        extension: extension.clone(),
        expected,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(FormatErrorKind::Empty);
    }
    // A PDF may carry a few bytes before its header; a text file that merely mentions
    // `%PDF-` is still text.
    let pdf = bytes.starts_with(b"%PDF-")
        || (matches!(extension.as_str(), "pdf" | "") && pdf_header_near_start(bytes));
    let mut budget = budget::Budget::for_input(bytes.len() as u64);
    let (text, format) = if pdf {
        if !matches!(extension.as_str(), "pdf" | "") {
            tracing::debug!(extension, "reading a PDF named otherwise");
        }
        (pdf::pdf_text(bytes)?, DocumentFormat::Pdf)
    } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        (docx::docx_text(bytes, &mut budget)?, DocumentFormat::Docx)
    } else if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return Err(FormatErrorKind::Unsupported(
            "legacy Word 97-2003 (.doc) or other OLE file: save it as .docx".into(),
        ));
    } else if extension == "pdf" {
        return Err(wrong("PDF"));
    } else if extension == "docx" {
        return Err(wrong("Word (zip)"));
    } else {
        let text = decode_text(bytes)?;
        let format = if extension == "json" {
            DocumentFormat::Json
        } else {
            DocumentFormat::Text
        };
        (text, format)
    };
    if text.trim().is_empty() {
        return Err(FormatErrorKind::Empty);
    }
    budget.check_lines(&text)?;
    Ok((text, format))
}

/// PDF readers accept a header within the first kilobyte (some files have junk before it).
fn pdf_header_near_start(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(1024)]
        .windows(5)
        .any(|w| w == b"%PDF-")
}

/// Text from bytes: UTF-8 (a BOM dropped) or UTF-16 with a BOM; binary data is refused.
fn decode_text(bytes: &[u8]) -> Result<String, FormatErrorKind> {
    let utf16 = |le: bool| {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| {
                if le {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        String::from_utf16(&units).map_err(|_| FormatErrorKind::Binary)
    };
    let text = if bytes.starts_with(&[0xFF, 0xFE]) {
        utf16(true)?
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        utf16(false)?
    } else {
        let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
        let head = &body[..body.len().min(8192)];
        if head.contains(&0) || control_share(head) > 0.1 {
            return Err(FormatErrorKind::Binary);
        }
        match std::str::from_utf8(body) {
            Ok(text) => text.to_string(),
            Err(err) => {
                return Err(FormatErrorKind::NotUtf8 {
                    offset: err.valid_up_to() + (bytes.len() - body.len()),
                })
            }
        }
    };
    if text.contains('\0') {
        return Err(FormatErrorKind::Binary);
    }
    Ok(text)
}

/// The share of control bytes other than tab, CR, LF and form feed.
fn control_share(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let controls = bytes
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C))
        .count();
    controls as f64 / bytes.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, bytes: &[u8]) -> Result<String, FormatErrorKind> {
        text_from_bytes(Path::new(name), bytes)
            .map(|(t, _)| t)
            .map_err(|e| e.kind)
    }

    #[test]
    fn text_is_read_as_utf8_or_utf16() {
        assert_eq!(
            read("a.txt", "\u{feff}1. Term".as_bytes()).unwrap(),
            "1. Term"
        );
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend("第一条".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(read("a.txt", &utf16).unwrap(), "第一条");
    }

    #[test]
    fn text_that_mentions_a_pdf_header_is_text() {
        let note = b"1. Formats\nFiles start with %PDF-1.7 when they are PDFs.\n";
        assert_eq!(
            read("notes.md", note).unwrap(),
            String::from_utf8_lossy(note)
        );
        let mut shifted = b"\r\n".to_vec();
        shifted.extend_from_slice(b"%PDF-1.7 not really");
        assert!(matches!(
            read("shifted.pdf", &shifted),
            Err(FormatErrorKind::CorruptPdf { .. })
        ));
    }

    #[test]
    fn empty_binary_and_mislabelled_files_are_errors() {
        assert!(matches!(read("a.md", b""), Err(FormatErrorKind::Empty)));
        assert!(matches!(
            read("a.md", b" \n\t\n"),
            Err(FormatErrorKind::Empty)
        ));
        assert!(matches!(
            read("a.bin", &[0, 1, 2, 3, 200]),
            Err(FormatErrorKind::Binary)
        ));
        assert!(matches!(
            read("a.txt", b"ok \xff\xfe bad"),
            Err(FormatErrorKind::NotUtf8 { offset: 3 })
        ));
        assert!(matches!(
            read("a.pdf", b"hello"),
            Err(FormatErrorKind::WrongExtension { .. })
        ));
        assert!(matches!(
            read("a.docx", b"hello"),
            Err(FormatErrorKind::WrongExtension { .. })
        ));
        let ole = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0];
        assert!(matches!(
            read("a.doc", &ole),
            Err(FormatErrorKind::Unsupported(_))
        ));
    }

    /// A device reports size 0 and never ends: it is refused before it is opened.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_is_refused_before_it_is_read() {
        let err = read_text("/dev/zero").unwrap_err();
        assert!(
            matches!(
                err.kind,
                FormatErrorKind::NotAFile {
                    found: "a character device"
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "cannot read document `/dev/zero`: it is a character device, not a regular file; \
             expected a contract file (.docx, .pdf, .md, .txt or .json)"
        );
    }

    /// A named pipe with no writer would make the read wait for ever: it is refused at once,
    /// by name, and so is a folder given where a file is read.
    #[cfg(unix)]
    #[test]
    fn a_named_pipe_without_writer_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("contract.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let started = std::time::Instant::now();
        let err = read_text(&fifo).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            matches!(
                err.kind,
                FormatErrorKind::NotAFile {
                    found: "a named pipe (FIFO)"
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string().contains(&fifo.display().to_string()),
            "{err}"
        );
        let err = read_text(dir.path()).unwrap_err();
        assert!(
            matches!(err.kind, FormatErrorKind::NotAFile { found: "a folder" }),
            "{err}"
        );
    }

    #[test]
    fn errors_name_the_file() {
        let err = read_text("/nonexistent/contract.docx").unwrap_err();
        assert!(matches!(err.kind, FormatErrorKind::Io(_)));
        assert!(
            err.to_string().contains("/nonexistent/contract.docx"),
            "{err}"
        );
    }
}
