//! Long-term memory as a front end lists, searches and forgets it, and agents' memory folders
//! (`memory: project`).

pub use crate::memory_folder::{
    AgentMemoryFolder, MEMORY_FILE, MEMORY_PROMPT_BYTES, MEMORY_PROMPT_LINES, MemoryFolderProblem,
    MemoryFolderWarning, memory_folder_name,
};
pub use agentctl_memory::{
    Matched, MemoryBackend, MemoryCopyReport, MemoryEntry, MemoryError, MemoryHit, MemoryQuery,
};
