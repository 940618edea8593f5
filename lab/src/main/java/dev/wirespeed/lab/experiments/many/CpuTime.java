package dev.wirespeed.lab.experiments.many;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time a process has used, all its threads, in nanoseconds: read from {@code /proc} before and
 * after a load, the server's cost of it.
 *
 * @param userNanos in user mode
 * @param systemNanos in the kernel on its behalf
 */
record CpuTime(long userNanos, long systemNanos) {
    static final CpuTime NONE = new CpuTime(0, 0);

    long total() {
        return userNanos + systemNanos;
    }

    /**
     * {@return the CPU time process {@code pid} has used, from {@code /proc/PID/stat}} Linux counts it
     * in ticks of 1/100 s ({@code USER_HZ}).
     */
    static CpuTime of(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // utime and stime, fields 14 and 15
        return new CpuTime(Long.parseLong(fields[11]) * 10_000_000L, Long.parseLong(fields[12]) * 10_000_000L);
    }
}
