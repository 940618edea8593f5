package dev.wirespeed.lab.env;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts {@code wirespeed} commands as separate JVMs, with this JVM's java and class path and the
 * launcher's flags, pinned to a CPU with {@code taskset} when asked.
 *
 * <p>With an archive folder, each kind of JVM (a command, or a command and a role, as
 * {@code server-per-frame}) gets a class-data sharing archive of its own there, written by the first
 * JVM of that kind to exit and mapped by every later one: a lab run starts hundreds of short JVMs,
 * and the archive saves each the loading of its classes. It holds class metadata only, not
 * profiles, so what a JVM measures once running is unchanged. A JVM writes its archive when it exits
 * normally if it found none when it started (a killed server writes none), and a JVM that starts
 * while another rewrites the file fails. So callers keep one rule: two JVMs alive at the same time are
 * of different kinds (the lab's servers and echoes that run side by side each have a kind of their
 * own; clients and pings run one at a time). Archives hold classes from jars only (a JVM
 * that cannot write one exits with an error), so a class path with a folder on it (a build's
 * {@code target/classes}) gets none.
 * Every child logs JVM warnings to standard error, leaving standard output to its reports, and logs
 * nothing about its archive.
 *
 * @param mainClass the class whose {@code main} runs a {@code wirespeed} command line
 * @param archives the folder of the class-data archives, or null for none
 */
public record Jvm(String mainClass, Path archives) {
    /** The launcher's collector, among {@link #FLAGS}: left out when the options of a JVM choose another. */
    public static final String LAUNCHER_GC = "-XX:+UseParallelGC";
    /**
     * The flags of the launcher, so that lab figures match what a user runs. Agrona 2 (the lab's shared-memory
     * peers) reaches the JDK's internal {@code Unsafe}, which the launcher exports to it.
     */
    public static final List<String> FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", LAUNCHER_GC);

    /** Whether this JVM's class path is all jars, which a class-data archive can hold. */
    private static final boolean ARCHIVABLE = Arrays.stream(System.getProperty("java.class.path")
            .split(File.pathSeparator)).allMatch(entry -> entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry)));

    /**
     * Checks the class name.
     *
     * @throws NullPointerException if it is null
     */
    public Jvm {
        Objects.requireNonNull(mainClass, "mainClass");
    }

    /**
     * {@return the command line of a {@code wirespeed} JVM whose archive is its command's}
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param args the {@code wirespeed} arguments, the command first
     */
    public List<String> command(int cpu, List<String> args) {
        return command(cpu, args.isEmpty() ? "none" : args.get(0), args);
    }

    /**
     * {@return the command line of a {@code wirespeed} JVM}
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param kind the name of its class-data archive: JVMs that load about the same classes share one
     * @param args the {@code wirespeed} arguments, the command first
     */
    public List<String> command(int cpu, String kind, List<String> args) {
        return command(cpu, kind, List.of(), args);
    }

    /**
     * {@return the command line of a {@code wirespeed} JVM with options of its own after the launcher's}
     * Options that choose a collector ({@code -XX:+Use...GC}) replace the launcher's.
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param kind the name of its class-data archive: JVMs that load about the same classes, with the same options, share one
     * @param options JVM options, e.g. {@code -XX:+UseZGC}
     * @param args the {@code wirespeed} arguments, the command first
     */
    public List<String> command(int cpu, String kind, List<String> options, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        boolean ownCollector = options.stream().anyMatch(o -> o.startsWith("-XX:+Use") && o.endsWith("GC"));
        for (String flag : FLAGS) {
            if (!(ownCollector && flag.equals(LAUNCHER_GC))) {
                command.add(flag);
            }
        }
        command.addAll(options);
        // JVM warnings to stderr, and none about the archive (a dynamic archive on the JDK's base one
        // reports that the launcher's --enable-native-access differs from the base archive's, at every start).
        command.addAll(List.of("-Xlog:disable", "-Xlog:all=warning,cds*=off,aot*=off:stderr"));
        if (archives != null && ARCHIVABLE) {
            command.addAll(List.of("-XX:+AutoCreateSharedArchive",
                    "-XX:SharedArchiveFile=" + archives.resolve(kind + ".jsa")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return Children.pinned(cpu, command);
    }

    /**
     * {@return a started {@code wirespeed} JVM}
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param kind the name of its class-data archive (see the class documentation)
     * @param args the {@code wirespeed} arguments, the command first
     * @throws IOException if it cannot be started
     */
    public Process start(int cpu, String kind, List<String> args) throws IOException {
        return new ProcessBuilder(command(cpu, kind, args)).start();
    }

    /**
     * {@return a started {@code wirespeed} JVM with options of its own after the launcher's}
     *
     * @param cpu the CPU to pin it to, or -1 for unpinned
     * @param kind the name of its class-data archive (see the class documentation)
     * @param options JVM options, e.g. {@code -XX:+AlwaysPreTouch}
     * @param args the {@code wirespeed} arguments, the command first
     * @throws IOException if it cannot be started
     */
    public Process start(int cpu, String kind, List<String> options, List<String> args) throws IOException {
        return new ProcessBuilder(command(cpu, kind, options, args)).start();
    }

    /**
     * {@return the live objects of a JVM's heap after a full collection, in KiB}: what {@code jcmd}'s
     * {@code GC.heap_info} says the heap uses once {@code GC.run} has collected (the parallel collector's
     * two generations together, or G1's heap)
     *
     * @param pid a JVM of this JDK
     * @throws IOException if {@code jcmd} fails or names neither collector's heap
     * @throws InterruptedException if interrupted while {@code jcmd} runs
     */
    public static long liveHeapKib(long pid) throws IOException, InterruptedException {
        Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
        String jcmd = java.resolveSibling("jcmd").toString();
        run(List.of(jcmd, String.valueOf(pid), "GC.run"));
        String info = run(List.of(jcmd, String.valueOf(pid), "GC.heap_info"));
        Matcher m = Pattern.compile("(PSYoungGen|ParOldGen|garbage-first heap)\\s+total [^\\n]*?used (\\d+)K").matcher(info);
        long used = 0;
        int parts = 0;
        boolean g1 = false;
        while (m.find()) {
            used += Long.parseLong(m.group(2));
            parts++;
            g1 |= m.group(1).startsWith("garbage");
        }
        if (parts != (g1 ? 1 : 2)) {
            throw new IOException("jcmd " + pid + " GC.heap_info: neither the parallel collector's two generations "
                    + "nor G1's heap in: " + info.strip());
        }
        return used;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = Children.drain(p.getInputStream());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }
}
