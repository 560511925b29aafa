//! The allocator setting the rewrite's memory bound needs (issue 27), applied when the addon loads.

/// glibc's malloc raises its mmap threshold each time a large mmapped block is freed (up to 32 MiB), so after
/// the first row groups the rewrite's big buffers — decoded columns, compressed pages, drained segments — come
/// from the heap arenas, and what they free there is kept, not returned. A fixed threshold turns that
/// adjustment off: blocks of at least MMAP_THRESHOLD are mmapped and go back to the OS when freed. Lower is
/// less memory and more system time (page faults on fresh pages, most on the JS paths' Arrow buffers); on the
/// 1 GB bench table at --parallelism 2 (bench/RESULTS.md, issue 27), peak RSS MiB / system CPU-s:
///
/// | threshold          | tiered round, 128 MiB | bin-pack, 512 MiB | bin-pack with equality deletes |
/// | ------------------ | --------------------- | ----------------- | ------------------------------ |
/// | glibc's (dynamic)  | ~520 / 1.5            | 557 / 2.7         | 889 / 4.1                      |
/// | 1 MiB              | 359 / 1.7             | 370 / 3.5         | 759 / 5.1                      |
/// | 512 KiB            | 329 / 2.5             | 340 / 5.5         | 677 / 7.3                      |
/// | 128 KiB            | 300 / 4.0             | 310 / 9.3         |                                |
///
/// of 20–60 CPU-s per case. 1 MiB keeps most of the memory for ~2 % more CPU (bin-pack's CPU is what the
/// DuckDB comparison is about). A MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ or MALLOC_TOP_PAD_ set by the
/// user wins.
///
/// Arenas: glibc gives each thread that allocates its own arena (up to 8 per core), and each keeps its freed
/// blocks apart. The codec's tasks run on libuv's four threads, so a task's buffers were spread over up to
/// five arenas besides the main one. At most ARENA_MAX arenas (unless MALLOC_ARENA_MAX is set): the 128 MiB
/// tiered round with equality deletes at --parallelism 2 went from 259–261 to 239–242 MiB peak RSS with
/// MALLOC_ARENA_MAX=2 (230–242 with 1). glibc applies the limit only to threads that have not allocated yet,
/// so the CLI loads the addon before anything else (src/shells/cli/main.ts): 236–247 MiB that way, 253–262
/// when it loaded at the first rewrite. The CPU figures are bench/RESULTS.md's (issue 27).
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const MMAP_THRESHOLD: std::os::raw::c_int = 1024 * 1024;
        const ARENA_MAX: std::os::raw::c_int = 2;
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            extern "C" {
                fn mallopt(
                    param: std::os::raw::c_int,
                    value: std::os::raw::c_int,
                ) -> std::os::raw::c_int;
            }
            const M_MMAP_THRESHOLD: std::os::raw::c_int = -3;
            const M_ARENA_MAX: std::os::raw::c_int = -8;
            let user_set = [
                "MALLOC_MMAP_THRESHOLD_",
                "MALLOC_TRIM_THRESHOLD_",
                "MALLOC_TOP_PAD_",
            ]
            .iter()
            .any(|k| std::env::var_os(k).is_some());
            // SAFETY: mallopt only changes allocator parameters; any thread may call it at any time
            unsafe {
                if !user_set {
                    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
                }
                if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
                    mallopt(M_ARENA_MAX, ARENA_MAX);
                }
            }
        });
    }
}

/// Gives the pages of freed heap memory back to the OS (glibc keeps them otherwise: blocks below the mmap
/// threshold are freed into arenas that only shrink from the top). The drain calls it as a row group is
/// flushed, every 4 MiB and after: the column chunks' pages (mostly 100–400 KiB, below the threshold) are freed
/// as they are copied into the drain, and without it a flush held the chunks' freed pages beside their copy.
/// On the 1 GB bench table's 128 MiB tiered round it took peak RSS from 371 to 304 MiB at --parallelism 2
/// (286 → 255 at 1) for no measurable CPU (bench/RESULTS.md, issue 27).
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::os::raw::c_int;
        }
        // SAFETY: malloc_trim only releases free memory; any thread may call it
        unsafe {
            malloc_trim(0);
        }
    }
}
