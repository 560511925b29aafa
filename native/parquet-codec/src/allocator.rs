//! The allocator setting the rewrite's memory bound needs (issue 27), applied when the addon loads.

/// glibc's malloc raises its mmap threshold each time a large mmapped block is freed (up to 32 MiB), so after
/// the first row groups the rewrite's big buffers — decoded columns, compressed pages, drained segments — come
/// from the heap arenas, and what they free there is kept, not returned. Setting the threshold (to glibc's own
/// default, 128 KiB) turns that adjustment off: large blocks stay mmapped and go back to the OS when freed. On
/// the 1 GB bench table a 128 MiB tiered round at --parallelism 1 peaked at ~255 instead of ~305 MiB, at the
/// same CPU within noise (bench/RESULTS.md, issue 27). A MALLOC_*_ tunable set by the user wins.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let user_set = [
                "MALLOC_MMAP_THRESHOLD_",
                "MALLOC_TRIM_THRESHOLD_",
                "MALLOC_TOP_PAD_",
            ]
            .iter()
            .any(|k| std::env::var_os(k).is_some());
            if !user_set {
                extern "C" {
                    fn mallopt(
                        param: std::os::raw::c_int,
                        value: std::os::raw::c_int,
                    ) -> std::os::raw::c_int;
                }
                const M_MMAP_THRESHOLD: std::os::raw::c_int = -3;
                // SAFETY: mallopt only changes allocator parameters; any thread may call it at any time
                unsafe {
                    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
                }
            }
        });
    }
}
