package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Unit;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A reader's wake-ups after idle periods: the writer ({@code ring-write --idle-ms}) stamps the first 8
 * bytes of each frame it sends after an idle period with its clock ({@link System#nanoTime()}, the
 * system's monotonic clock, which every process reads alike) at the send, and 0 in the frames of its
 * warm-up burst; this takes each stamped frame's time from the stamp to its handler, and the process's
 * CPU time between two stamped frames. The first stamped frame is not counted: before it the reader was
 * starting, not idle.
 *
 * <p>Thread safety: one thread.
 */
public final class Wakes implements FrameHandler {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long[] latencies = new long[16];
    private long[] gaps = new long[16];
    private int stamped;
    private long lastWall;
    private long lastCpu;
    private long idleCpu;
    private long idleWall;

    /** A reader's record, empty. */
    public Wakes() {
    }

    @Override
    public void onFrame(int type, ByteBuffer body) {
        long now = System.nanoTime();
        if (body.remaining() < 8) {
            return;
        }
        long stamp = body.getLong(body.position());
        if (stamp == 0) {
            return; // the warm-up burst's
        }
        long cpu = OS.getProcessCpuTime();
        if (stamped > 0) {
            int i = stamped - 1;
            if (i == latencies.length) {
                latencies = Arrays.copyOf(latencies, 2 * i);
                gaps = Arrays.copyOf(gaps, 2 * i);
            }
            latencies[i] = now - stamp;
            gaps[i] = now - lastWall;
            idleWall += now - lastWall;
            idleCpu += cpu - lastCpu;
        }
        stamped++;
        lastWall = System.nanoTime();
        lastCpu = OS.getProcessCpuTime();
    }

    /** {@return the wake-ups counted so far}: the stamped frames after the first */
    public int count() {
        return Math.max(0, stamped - 1);
    }

    /**
     * {@return the report of the wake-ups}
     *
     * @throws IllegalStateException if fewer than two stamped frames came, naming how many did
     */
    public ChildReport.Wakes report() {
        int n = count();
        if (n < 1) {
            throw new IllegalStateException("stamped frames=" + stamped + ": a wake-up needs at least 2 (the first "
                    + "is not counted); did the writer run with --idle-ms?");
        }
        long[] sorted = Arrays.copyOf(latencies, n);
        Arrays.sort(sorted);
        long[] sortedGaps = Arrays.copyOf(gaps, n);
        Arrays.sort(sortedGaps);
        return new ChildReport.Wakes(n, Math.round(sortedGaps[(n - 1) / 2] / 1e6), (double) idleCpu / idleWall,
                sorted[(n - 1) / 2] / 1000.0, sorted[n - 1] / 1000.0, Unit.MICROSECONDS);
    }
}
