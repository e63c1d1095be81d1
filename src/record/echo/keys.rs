//! The top-level keys of a `toolUseResult` object that its readers ask
//! about: the keys stats' shape detector tells tools apart by (REC-071), the
//! `answers` of an AskUserQuestion echo (TURN-009), and the values of `type`
//! and `status` it compares. A set of bits, noted during the record's walk.

/// A key the readers ask about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Type,
    Status,
    Content,
    FilePath,
    OldString,
    NewString,
    Edits,
    File,
    Stdout,
    Stderr,
    Mode,
    Filenames,
    NumFiles,
    IsAsync,
    TotalTokens,
    TotalToolUseCount,
    Questions,
    Answers,
    NewTodos,
    OldTodos,
    Url,
    Code,
    Query,
    Results,
    TaskId,
    UpdatedFields,
    RetrievalStatus,
    TaskIdSnake,
    TaskType,
    Task,
    CommandName,
    Plan,
}

/// Every key, in bit order, with its name as written.
const KEYS: [(Key, &str); 32] = [
    (Key::Type, "type"),
    (Key::Status, "status"),
    (Key::Content, "content"),
    (Key::FilePath, "filePath"),
    (Key::OldString, "oldString"),
    (Key::NewString, "newString"),
    (Key::Edits, "edits"),
    (Key::File, "file"),
    (Key::Stdout, "stdout"),
    (Key::Stderr, "stderr"),
    (Key::Mode, "mode"),
    (Key::Filenames, "filenames"),
    (Key::NumFiles, "numFiles"),
    (Key::IsAsync, "isAsync"),
    (Key::TotalTokens, "totalTokens"),
    (Key::TotalToolUseCount, "totalToolUseCount"),
    (Key::Questions, "questions"),
    (Key::Answers, "answers"),
    (Key::NewTodos, "newTodos"),
    (Key::OldTodos, "oldTodos"),
    (Key::Url, "url"),
    (Key::Code, "code"),
    (Key::Query, "query"),
    (Key::Results, "results"),
    (Key::TaskId, "taskId"),
    (Key::UpdatedFields, "updatedFields"),
    (Key::RetrievalStatus, "retrieval_status"),
    (Key::TaskIdSnake, "task_id"),
    (Key::TaskType, "task_type"),
    (Key::Task, "task"),
    (Key::CommandName, "commandName"),
    (Key::Plan, "plan"),
];

impl Key {
    /// The key named `name`, if the readers ask about it.
    pub(crate) fn of(name: &str) -> Option<Key> {
        Some(match name {
            "type" => Key::Type,
            "status" => Key::Status,
            "content" => Key::Content,
            "filePath" => Key::FilePath,
            "oldString" => Key::OldString,
            "newString" => Key::NewString,
            "edits" => Key::Edits,
            "file" => Key::File,
            "stdout" => Key::Stdout,
            "stderr" => Key::Stderr,
            "mode" => Key::Mode,
            "filenames" => Key::Filenames,
            "numFiles" => Key::NumFiles,
            "isAsync" => Key::IsAsync,
            "totalTokens" => Key::TotalTokens,
            "totalToolUseCount" => Key::TotalToolUseCount,
            "questions" => Key::Questions,
            "answers" => Key::Answers,
            "newTodos" => Key::NewTodos,
            "oldTodos" => Key::OldTodos,
            "url" => Key::Url,
            "code" => Key::Code,
            "query" => Key::Query,
            "results" => Key::Results,
            "taskId" => Key::TaskId,
            "updatedFields" => Key::UpdatedFields,
            "retrieval_status" => Key::RetrievalStatus,
            "task_id" => Key::TaskIdSnake,
            "task_type" => Key::TaskType,
            "task" => Key::Task,
            "commandName" => Key::CommandName,
            "plan" => Key::Plan,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        KEYS[self as usize].1
    }
}

/// The value of `type` the shape detector compares (the last one written, as
/// a map keeps it; `Other` for any other string, a non-string or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Ty {
    Create,
    Update,
    Text,
    Image,
    Notebook,
    Pdf,
    Parts,
    FileUnchanged,
    #[default]
    Other,
}

impl Ty {
    pub(crate) fn of(s: &str) -> Ty {
        match s {
            "create" => Ty::Create,
            "update" => Ty::Update,
            "text" => Ty::Text,
            "image" => Ty::Image,
            "notebook" => Ty::Notebook,
            "pdf" => Ty::Pdf,
            "parts" => Ty::Parts,
            "file_unchanged" => Ty::FileUnchanged,
            _ => Ty::Other,
        }
    }
}

/// The value of `status` the shape detector compares, as [`Ty`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Status {
    AsyncLaunched,
    TeammateSpawned,
    #[default]
    Other,
}

impl Status {
    pub(crate) fn of(s: &str) -> Status {
        match s {
            "async_launched" => Status::AsyncLaunched,
            "teammate_spawned" => Status::TeammateSpawned,
            _ => Status::Other,
        }
    }
}

/// Which of the [`Key`]s an echo object holds, whether it holds any other
/// key, and its `type` and `status`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EchoKeys {
    bits: u32,
    other: bool,
    ty: Ty,
    status: Status,
}

impl EchoKeys {
    /// Note a key and its value as written.
    pub(crate) fn note(&mut self, name: &str, value: &[u8]) {
        let Some(k) = Key::of(name) else {
            self.other = true;
            return;
        };
        self.bits |= 1 << k as u32;
        let text = || crate::scan::json::string(value).unwrap_or_default();
        match k {
            Key::Type => self.ty = Ty::of(&text()),
            Key::Status => self.status = Status::of(&text()),
            _ => {}
        }
    }

    pub(crate) fn has(&self, k: Key) -> bool {
        self.bits & (1 << k as u32) != 0
    }

    /// Whether `k` is the object's one distinct key.
    pub(crate) fn only(&self, k: Key) -> bool {
        !self.other && self.bits == 1 << k as u32
    }

    pub(crate) fn ty(&self) -> Ty {
        self.ty
    }

    pub(crate) fn status(&self) -> Status {
        self.status
    }
}
