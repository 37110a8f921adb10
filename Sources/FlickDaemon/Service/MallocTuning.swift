import CMalloc

/// glibc's allocator set for a daemon whose tile workers churn through short-lived buffers (and
/// for `flickd pyramid`, whose encoding threads do the same).
public enum MallocTuning {
    /// Tile workers decode hundreds of tiles a second, each through transient buffers of 100–300
    /// KiB. glibc's sliding mmap threshold soon serves those from per-thread heaps, which keep
    /// the freed space resident (14 MiB after a few jumps across a map). A fixed threshold maps
    /// every buffer from 128 KiB up on its own, given back when freed, and two arenas stop each
    /// thread growing its own heap.
    public static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, 128 << 10)
        _ = mallopt(M_ARENA_MAX, 2)
    }
}
