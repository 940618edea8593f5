package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.StackTrace;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Checks the library's allocation claim the way it is made: nothing allocated per operation in the
 * steady state, that is once the JIT has compiled the path, on every thread the claim is about.
 *
 * <p>The rule, exactly: after the stated warm-up (at least {@value #WARM_CALLS} calls of {@value #CHUNK}
 * operations), a wait for the JIT to go quiet, and one window run as the measured ones are but not judged
 * (what a window does for the first time allocates there: linking the meters' reads, and in a JVM's first
 * check 656 bytes more with no JIT event seen), windows of {@value #WINDOW} operations run one after another
 * until {@value #WINDOWS} of them allocated exactly 0 bytes on every meter (a meter is a
 * thread's allocated bytes, or such a count less what a part the claim is not about allocated on it).
 * The check passes when the first {@value #WINDOWS} windows allocate nothing; or when at most
 * {@value #MAX_SET_ASIDE} windows allocated, each of them one in which, or in the window just before
 * which, the JIT compiled or deoptimised code (a thread enters code compiled on a loop's back edge at
 * its next check of the loop's counter, which may fall in the next window), and each at most
 * {@value #MAX_SET_ASIDE_BYTES} bytes on all meters together, and the {@value #WINDOWS} windows beside
 * them allocated nothing. Every other outcome fails: a window that allocates without the JIT at work in
 * it or the window before, a set-aside window over its bound, a third allocating window.
 * No window is averaged with another. A window set aside is named in the output, with its bytes and the
 * methods the JIT compiled and deoptimised in it, as a path that allocated only while the JIT was at
 * work.
 *
 * <p>How the JIT's activity is read: a JFR recording runs in this JVM for the whole check (started
 * before the warm-up, so that starting it changes no code the windows run) with every
 * {@code jdk.Compilation} (threshold 0) and every {@code jdk.Deoptimization}, and an event of this class
 * marks the start and end of each window on the same clock. A compilation belongs to each window its
 * time overlaps, a deoptimisation to the window it falls in. Every compilation in the JVM counts, not
 * only the measured path's: a window can be set aside for less, never for more. The recording is read
 * only when a window allocated, so a clean check pays for its start and stop alone.
 *
 * <p>The wait before the windows (until the total compilation time has not changed for
 * {@value #QUIET_MILLIS} ms, failing after {@value #MAX_WAIT_MILLIS} ms) only makes windows without
 * the JIT likelier; nothing is proven by it.
 *
 * <p>Why operations run in calls of {@value #CHUNK}: a thread that enters code compiled on a loop's back
 * edge (on-stack replacement) in the middle of a window shows bytes there that no Java allocation accounts
 * for (48, on JDK 25). The method that runs {@value #CHUNK} operations is called more often during the
 * warm-up than its {@code Tier4InvocationThreshold} (5,000), so it is compiled whole before the windows,
 * and a window is a loop of a thousand calls of it that runs too few times to be compiled itself.
 *
 * <p>The check refuses to measure in a JVM where an agent instruments classes ({@link JvmAgents}).
 */
public final class SteadyState {
    /** Operations per measured window. */
    public static final int WINDOW = 10_000;
    /** Windows that must allocate 0 bytes on every meter. */
    public static final int WINDOWS = 5;
    /** Windows that allocated while the JIT compiled or deoptimised, set aside, at most. */
    public static final int MAX_SET_ASIDE = 2;
    /**
     * Bytes a set-aside window may allocate at most, on all meters together: one per operation of the
     * window. The smallest object takes 16 bytes, so a window within it cannot have allocated on more
     * than one operation in 16, and a path that allocates that rarely still fails, in the clean windows,
     * which must allocate nothing. What the JIT's work itself costs a thread is not bounded by the
     * library: entering a loop compiled on its back edge (on-stack replacement) has shown 48 bytes, and
     * a test peer's own loop compiled so 2,224.
     */
    public static final long MAX_SET_ASIDE_BYTES = WINDOW;
    /** Windows measured at most: the clean ones and the set-aside ones, and one more that fails. */
    public static final int MAX_WINDOWS = WINDOWS + MAX_SET_ASIDE + 1;

    /** Looked up once: each lookup walks the platform's beans, work the JIT would then compile. */
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** Operations per call of the loop during warm-up. */
    private static final int CHUNK = 10;
    /** Calls of the loop during warm-up at least: see the class comment. */
    private static final int WARM_CALLS = 6_000;
    private static final long QUIET_MILLIS = 200;
    private static final long MAX_WAIT_MILLIS = 30_000;
    private static final String COMPILATION = "jdk.Compilation";
    private static final String DEOPTIMIZATION = "jdk.Deoptimization";
    /** Classes loaded, hidden ones (a method handle's forms) included: named beside a window that allocated. */
    private static final String CLASS_LOAD = "jdk.ClassLoad";
    private static final String EDGE = "dev.wirespeed.testing.SteadyStateWindow";

    /** One operation of the path under test. */
    @FunctionalInterface
    public interface Operation {
        /**
         * Runs operation {@code i}.
         *
         * @param i its index, from 0 over warm-up and measured operations
         * @throws Exception if it fails: the check fails with it
         */
        void run(int i) throws Exception;
    }

    /**
     * A count of allocated bytes that only grows, read between windows.
     *
     * @param name what it counts, for the table ("loop-0", "loop-0 less the engine")
     * @param bytes reads the count; must allocate nothing itself
     */
    public record Meter(String name, LongSupplier bytes) {
        /** {@return the bytes {@code thread} allocated, read through the JDK's single-id read, which allocates nothing} */
        public static Meter of(Thread thread) {
            long id = thread.threadId();
            return new Meter(thread.getName(), () -> threadAllocatedBytes(id));
        }
    }

    /** Marks a window's start or end in the recording, on the clock of the JIT's events. */
    @Name(EDGE)
    @StackTrace(false)
    static final class Edge extends Event {
        int window;
        boolean end;
    }

    private SteadyState() {
    }

    /**
     * Runs {@code warm} operations (at least {@value #WARM_CALLS} * {@value #CHUNK}), waits for the JIT to
     * go quiet, and measures windows of {@link #WINDOW} operations by the rule of the class comment, on
     * each of {@code threads}.
     *
     * @param what the operation in words, for the failure message ("echoes")
     * @param threads the threads the claim is about: the caller's, a loop it drives, both; each alive
     *     until the check returns
     * @param warm operations before measuring
     * @param operation the operation; when it returns, the measured threads have done its work
     * @return the operations run, warm-up included: at most {@link #maxOperations(int) maxOperations(warm)}
     * @throws Exception what an operation threw
     */
    public static int assertAllocatesNothingPerOperation(String what, List<Thread> threads, int warm,
            Operation operation) throws Exception {
        return assertMetersStillPerOperation(what, threads.stream().map(Meter::of).toList(), warm, operation);
    }

    /**
     * {@link #assertAllocatesNothingPerOperation} on counts other than whole threads' bytes.
     *
     * @param what the operation in words
     * @param meters what must not grow in the windows; each readable until the check returns
     * @param warm operations before measuring
     * @param operation the operation; when it returns, the meters have counted its work
     * @return the operations run, warm-up included
     * @throws Exception what an operation threw
     */
    public static int assertMetersStillPerOperation(String what, List<Meter> meters, int warm, Operation operation)
            throws Exception {
        JvmAgents.instrumenting().ifPresent(agents -> fail(what + ": allocation is not measured under " + agents));
        if (meters.isEmpty()) {
            throw new IllegalArgumentException("no meter to read");
        }
        LongSupplier[] reads = meters.stream().map(Meter::bytes).toArray(LongSupplier[]::new);
        List<String> names = meters.stream().map(Meter::name).toList();
        try (Recording jit = new Recording()) {
            jit.enable(COMPILATION).withThreshold(Duration.ZERO);
            jit.enable(DEOPTIMIZATION).withoutStackTrace();
            jit.enable(CLASS_LOAD).withThreshold(Duration.ZERO).withoutStackTrace();
            jit.enable(Edge.class);
            jit.start();
            mark(-1, false); // the event's class loaded and its commit run before the windows
            int i = 0;
            i = warmUp(operation, Math.max(warm, WARM_CALLS * CHUNK));
            int warmed = i;
            long waited = awaitQuietJit();
            if (waited < 0) {
                fail(what + ": the JIT was still compiling " + MAX_WAIT_MILLIS + " ms after " + warmed
                        + " warm-up operations (no " + QUIET_MILLIS + " ms without a compilation): no steady state to measure");
            }
            long[][] bytes = new long[MAX_WINDOWS][reads.length];
            long[] before = new long[reads.length];
            for (int k = 0; k < CHUNK; k++) {
                read(reads, before); // the first reads load and link classes: allocations of their own
            }
            // A rehearsal, the last thing before the windows: what a window does for the first time, unmeasured.
            mark(-1, false);
            read(reads, before);
            i = window(operation, i);
            read(reads, bytes[0]);
            mark(-1, true);
            warmed = i;
            int measured = 0;
            int clean = 0;
            while (clean < WINDOWS && measured - clean <= MAX_SET_ASIDE) {
                mark(measured, false);
                read(reads, before);
                i = window(operation, i);
                read(reads, bytes[measured]);
                mark(measured, true);
                long sum = 0;
                for (int t = 0; t < reads.length; t++) {
                    bytes[measured][t] -= before[t];
                    sum |= bytes[measured][t];
                }
                clean += sum == 0 ? 1 : 0;
                measured++;
            }
            jit.stop();
            String after = " after " + warmed + " warm-up operations and a wait of " + waited + " ms for the JIT";
            if (clean == measured) {
                System.out.println("SteadyState " + what + ": " + WINDOWS + " windows of " + WINDOW
                        + " operations allocated 0 bytes on every one of " + names + after);
                return i;
            }
            List<JitWindow> activity = activity(jit, measured);
            Verdict verdict = judge(bytes, activity, measured);
            String table = "\n" + table(names, Arrays.copyOf(bytes, measured), activity, verdict);
            if (verdict.failure() != null) {
                fail(what + ": " + verdict.failure() + "; " + clean + " of " + measured + " windows of " + WINDOW
                        + " operations allocated 0 bytes on every one of " + names + after + table);
            }
            System.out.println("SteadyState " + what + ": " + WINDOWS + " windows of " + WINDOW
                    + " operations allocated 0 bytes on every one of " + names + after + "; set aside, as allocating "
                    + "only while the JIT compiled or deoptimised: " + verdict.setAside() + table);
            return i;
        }
    }

    /**
     * {@return the operations a check with {@code warm} warm-up operations runs at most}: a caller that
     * feeds the operations from a finite source makes at least this many
     */
    public static long maxOperations(int warm) {
        return (long) Math.ceilDiv(Math.max(warm, WARM_CALLS * CHUNK), CHUNK) * CHUNK + (long) (1 + MAX_WINDOWS) * WINDOW;
    }

    /**
     * What the windows show, judged: {@code failure} says why the check fails, or is null; {@code setAside}
     * lists the windows set aside.
     */
    record Verdict(String failure, List<Integer> setAside) {
    }

    /**
     * The JIT's work during one window: compiled and deoptimised methods, in words; and the classes loaded in
     * it, which the failure's table names beside a window that allocated (they do not set a window aside).
     */
    record JitWindow(List<String> compiled, List<String> deoptimised, List<String> loaded) {
        JitWindow(List<String> compiled, List<String> deoptimised) {
            this(compiled, deoptimised, new ArrayList<>());
        }

        boolean active() {
            return !compiled.isEmpty() || !deoptimised.isEmpty();
        }
    }

    /**
     * Judges {@code measured} windows' {@code bytes[window][meter]} by the rule of the class comment, with
     * the JIT's {@code activity} in each.
     */
    static Verdict judge(long[][] bytes, List<JitWindow> activity, int measured) {
        List<Integer> setAside = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        int clean = 0;
        for (int w = 0; w < measured; w++) {
            long total = 0;
            for (long b : bytes[w]) {
                total += b;
            }
            if (total == 0) {
                clean++;
            } else if (!activity.get(w).active() && (w == 0 || !activity.get(w - 1).active())) {
                failures.add("window " + w + " allocated " + total + " bytes while the JIT neither compiled nor deoptimised"
                        + (w == 0 ? "" : " in it or the window before"));
            } else if (total > MAX_SET_ASIDE_BYTES) {
                failures.add("window " + w + " allocated " + total + " bytes while the JIT was at work, over the "
                        + MAX_SET_ASIDE_BYTES + " a window set aside may");
            } else {
                setAside.add(w);
            }
        }
        if (setAside.size() > MAX_SET_ASIDE) {
            failures.add(setAside.size() + " windows " + setAside + " allocated while the JIT was at work, over the "
                    + MAX_SET_ASIDE + " that may be set aside");
        }
        if (clean < WINDOWS) {
            failures.add("only " + clean + " windows allocated nothing, not " + WINDOWS);
        }
        return new Verdict(failures.isEmpty() ? null : String.join("; ", failures), setAside);
    }

    /** Commits an edge of window {@code window}; allocates, so only between windows. */
    private static void mark(int window, boolean end) {
        Edge edge = new Edge();
        edge.window = window;
        edge.end = end;
        edge.commit();
    }

    /** {@return the JIT's work in each of {@code measured} windows, read from the stopped recording} */
    private static List<JitWindow> activity(Recording jit, int measured) throws IOException {
        Path file = Files.createTempFile("steady-state", ".jfr");
        try {
            jit.dump(file);
            List<RecordedEvent> events = RecordingFile.readAllEvents(file);
            Instant[] starts = new Instant[measured];
            Instant[] ends = new Instant[measured];
            for (RecordedEvent e : events) {
                if (e.getEventType().getName().equals(EDGE) && e.getInt("window") >= 0) {
                    (e.getBoolean("end") ? ends : starts)[e.getInt("window")] = e.getStartTime();
                }
            }
            List<JitWindow> windows = new ArrayList<>();
            for (int w = 0; w < measured; w++) {
                windows.add(new JitWindow(new ArrayList<>(), new ArrayList<>()));
            }
            for (RecordedEvent e : events) {
                String type = e.getEventType().getName();
                if (!type.equals(COMPILATION) && !type.equals(DEOPTIMIZATION) && !type.equals(CLASS_LOAD)) {
                    continue;
                }
                for (int w = 0; w < measured; w++) {
                    if (!e.getEndTime().isBefore(starts[w]) && !e.getStartTime().isAfter(ends[w])) {
                        if (type.equals(CLASS_LOAD)) {
                            RecordedClass loaded = e.getValue("loadedClass");
                            RecordedThread thread = e.getThread();
                            windows.get(w).loaded().add((loaded == null ? "?" : loaded.getName()) + " (on "
                                    + (thread == null ? "?" : thread.getJavaName()) + ")");
                        } else if (type.equals(COMPILATION)) {
                            windows.get(w).compiled().add(method(e.getValue("method")) + " (id " + e.getValue("compileId")
                                    + ", level " + e.getValue("compileLevel") + (e.getBoolean("isOsr") ? ", OSR" : "")
                                    + (e.getBoolean("succeded") ? "" : ", failed") + ")");
                        } else {
                            RecordedThread thread = e.getThread();
                            windows.get(w).deoptimised().add(method(e.getValue("method")) + " (" + e.getString("reason")
                                    + ", " + e.getString("action") + ", on " + (thread == null ? "?" : thread.getJavaName())
                                    + ")");
                        }
                    }
                }
            }
            return windows;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String method(RecordedMethod m) {
        return m == null ? "?" : m.getType().getName() + "." + m.getName();
    }

    /** Runs operations 0 to at least {@code count - 1}, in calls of {@link #CHUNK}; {@return the next index} */
    private static int warmUp(Operation operation, int count) throws Exception {
        int i = 0;
        while (i < count) {
            i = run(operation, i, CHUNK);
        }
        return i;
    }

    /**
     * Runs a window, operations {@code from} to {@code from + WINDOW - 1}, in calls of {@link #CHUNK}; {@return
     * the next index}. Its loop stays in the interpreter, and the compiled {@code run} is entered whole: no
     * thread enters code compiled on a loop's back edge in a window. One check runs it {@value #MAX_WINDOWS}
     * times at most, but a JVM that runs many checks counts its back edges across them all: the build's test
     * JVMs exclude it from compilation ({@code -XX:CompileCommand=exclude}, in {@code wirespeed.testArgs}), and
     * elsewhere the window where a compilation of it is entered is one after a window the JIT worked in.
     */
    private static int window(Operation operation, int from) throws Exception {
        int i = from;
        for (int k = 0; k < WINDOW / CHUNK; k++) {
            i = run(operation, i, CHUNK);
        }
        return i;
    }

    /** Runs operations {@code from} to {@code from + count - 1}; {@return the next index} */
    private static int run(Operation operation, int from, int count) throws Exception {
        int end = from + count;
        for (int i = from; i < end; i++) {
            operation.run(i);
        }
        return end;
    }

    /** Reads each meter into {@code into}; allocates nothing. */
    private static void read(LongSupplier[] reads, long[] into) {
        for (int t = 0; t < reads.length; t++) {
            into[t] = reads[t].getAsLong();
        }
    }

    /** {@return the bytes the thread of {@code id} allocated so far}; allocates nothing */
    public static long threadAllocatedBytes(long id) {
        long b = THREADS.getThreadAllocatedBytes(id);
        if (b < 0) {
            throw new IllegalStateException("thread id=" + id + " ended, or allocation counting is off");
        }
        return b;
    }

    /**
     * {@return {@code bytes[window][meter]} with the JIT's work in each window as a table, a line per
     * window, then the methods compiled and deoptimised in each window that allocated}
     */
    static String table(List<String> meters, long[][] bytes, List<JitWindow> activity, Verdict verdict) {
        StringBuilder s = new StringBuilder("window");
        for (String meter : meters) {
            s.append(" | ").append(meter).append(" bytes");
        }
        s.append(" | compilations | deoptimisations | judged\n");
        for (int w = 0; w < bytes.length; w++) {
            s.append(w);
            long total = 0;
            for (long b : bytes[w]) {
                s.append(" | ").append(b);
                total += b;
            }
            JitWindow jit = activity.get(w);
            s.append(" | ").append(jit.compiled().size()).append(" | ").append(jit.deoptimised().size()).append(" | ")
                    .append(total == 0 ? "clean" : verdict.setAside().contains(w) ? "set aside" : "failed").append('\n');
        }
        for (int w = 0; w < bytes.length; w++) {
            JitWindow jit = activity.get(w);
            boolean allocated = Arrays.stream(bytes[w]).anyMatch(b -> b != 0);
            if (jit.active() && allocated) {
                s.append("window ").append(w).append(" compiled ").append(jit.compiled()).append(" deoptimised ")
                        .append(jit.deoptimised()).append('\n');
            }
            if (!jit.loaded().isEmpty() && allocated) {
                s.append("window ").append(w).append(" loaded ").append(jit.loaded()).append('\n');
            }
        }
        return s.toString();
    }

    /**
     * {@return the milliseconds waited until the JIT compiled nothing for {@link #QUIET_MILLIS}, or -1 if
     * {@link #MAX_WAIT_MILLIS} passed first}
     */
    private static long awaitQuietJit() throws InterruptedException {
        if (COMPILER == null || !COMPILER.isCompilationTimeMonitoringSupported()) {
            fail("this JVM does not say when its JIT compiles (" + System.getProperty("java.vm.name")
                    + "): a steady state cannot be told apart from a cold one");
        }
        long start = System.nanoTime();
        long quietSince = start;
        long compiled = COMPILER.getTotalCompilationTime();
        while (true) {
            Thread.sleep(10);
            long now = System.nanoTime();
            long total = COMPILER.getTotalCompilationTime();
            if (total != compiled) {
                compiled = total;
                quietSince = now;
            } else if (now - quietSince >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
                return TimeUnit.NANOSECONDS.toMillis(now - start);
            }
            if (now - start >= TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS)) {
                return -1;
            }
        }
    }
}
