package dev.wirespeed.lab.env;

import dev.wirespeed.lab.Listening;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lab's child processes: pinning a command, waiting for a server to listen, reading a child's
 * reports and draining what else it prints.
 */
public final class Children {
    /** What every server of the lab (Java and C) prints first on standard error: {@link Listening}. */
    private static final Pattern LISTENING = Pattern.compile(Pattern.quote(Listening.PREFIX) + "(?:[^:]+:(\\d+)|\\S+)");

    private Children() {
    }

    /**
     * {@return {@code command} run under {@code taskset -c cpu}, or as it is for a negative cpu}
     *
     * @param cpu the CPU, or -1 for unpinned
     * @param command the command
     */
    public static List<String> pinned(int cpu, List<String> command) {
        List<String> all = new ArrayList<>();
        if (cpu >= 0) {
            all.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
        }
        all.addAll(command);
        return all;
    }

    /**
     * Waits for a server's {@code listening on ...} line on its standard error (after any lines the JVM
     * printed first), then drains the rest.
     *
     * @param server a started server
     * @param path the Unix socket path it was given, or null for TCP
     * @return the TCP port it listens on, or {@code path}
     * @throws IOException if its standard error ends without the listening line, naming what it said
     */
    public static String awaitListening(Process server, String path) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        StringBuilder said = new StringBuilder();
        for (String line = err.readLine(); line != null; line = err.readLine()) {
            Matcher matcher = LISTENING.matcher(line);
            if (matcher.find()) {
                Thread.ofVirtual().start(() -> drain(server.getErrorStream()));
                return path != null ? path : matcher.group(1);
            }
            said.append(said.isEmpty() ? "" : " | ").append(line);
        }
        throw new IOException("the server did not start: it said " + (said.isEmpty() ? "nothing" : said));
    }

    /**
     * Waits for a line that starts with {@code prefix} on a child's standard error (after any lines it
     * printed first), then drains the rest: for a child that says so once what it made is ready, as
     * {@code ring-write}'s {@code ring at PATH}.
     *
     * @param child a started process
     * @param prefix how the line starts
     * @return the rest of that line
     * @throws IOException if its standard error ends without such a line, naming the prefix and what it said
     */
    public static String awaitLine(Process child, String prefix) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(child.getErrorStream(), StandardCharsets.UTF_8));
        String line = lineStarting(err, prefix);
        Thread.ofVirtual().start(() -> drain(err));
        return line.substring(prefix.length());
    }

    /**
     * Waits for a line that starts with {@code prefix} on a child's standard error, as {@link #awaitLine},
     * then reads the rest on a virtual thread of its own, for a message should the child fail later.
     *
     * @param child a started process
     * @param prefix how the line starts
     * @return what the child says on standard error after that line, once it closes it
     * @throws IOException if its standard error ends without such a line, naming the prefix and what it said
     */
    public static CompletableFuture<String> awaitLineThenDrain(Process child, String prefix) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(child.getErrorStream(), StandardCharsets.UTF_8));
        lineStarting(err, prefix);
        CompletableFuture<String> rest = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> rest.complete(drain(err)));
        return rest;
    }

    private static String lineStarting(BufferedReader err, String prefix) throws IOException {
        StringBuilder said = new StringBuilder();
        for (String line = err.readLine(); line != null; line = err.readLine()) {
            if (line.startsWith(prefix)) {
                return line;
            }
            said.append(said.isEmpty() ? "" : " | ").append(line);
        }
        throw new IOException("the child did not print '" + prefix + "...': it said " + (said.isEmpty() ? "nothing"
                : said));
    }

    private static String drain(BufferedReader in) {
        StringBuilder text = new StringBuilder();
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                text.append(text.isEmpty() ? "" : "\n").append(line);
            }
        } catch (IOException e) {
            text.append("(unreadable: ").append(e.getMessage()).append(')');
        }
        return text.toString().strip();
    }

    /**
     * Reads every report a child prints on standard output until it exits, and checks that it exited 0.
     *
     * @param child the started process
     * @param what what it is, for messages
     * @param timeoutMinutes how long it may take
     * @return its reports in order
     * @throws IOException if a line is not a report (naming the line), or it fails or hangs (with its
     *     standard error)
     * @throws InterruptedException if interrupted while waiting
     */
    public static List<ChildReport> reports(Process child, String what, long timeoutMinutes)
            throws IOException, InterruptedException {
        CompletableFuture<String> err = drainLater(child.getErrorStream());
        List<ChildReport> reports = new ArrayList<>();
        IOException unreadable = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (unreadable == null) {
                    try {
                        reports.add(ChildReports.read(line));
                    } catch (IOException e) {
                        unreadable = e;
                    }
                }
            }
        }
        if (!child.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
            child.destroyForcibly();
            throw new IOException(what + " did not finish in " + timeoutMinutes + " minutes");
        }
        if (child.exitValue() != 0) {
            throw new IOException(what + " failed (exit " + child.exitValue() + "): " + err.join());
        }
        if (unreadable != null) {
            throw new IOException(what + " printed " + unreadable.getMessage(), unreadable);
        }
        return reports;
    }

    /**
     * {@return the rounds a client reported after its first, the warm-up}, once it has exited
     *
     * @param client a {@code client --json} or C reader process
     * @param what what it is, for messages
     * @throws IOException as {@link #reports}, or if it reported no round after the first
     * @throws InterruptedException if interrupted while waiting
     */
    public static List<ChildReport.Round> measuredRounds(Process client, String what)
            throws IOException, InterruptedException {
        List<ChildReport> reports = reports(client, what, 5);
        List<ChildReport.Round> measured = new ArrayList<>();
        for (ChildReport report : reports) {
            if (report instanceof ChildReport.Round round && round.round() > 1) {
                measured.add(round);
            }
        }
        if (measured.isEmpty()) {
            throw new IOException(what + " reported no measured round: " + reports);
        }
        return measured;
    }

    /**
     * {@return the one latency line a ping reported}, once it has exited
     *
     * @param ping a {@code ping --json} or C ping-pong process
     * @param what what it is, for messages
     * @throws IOException as {@link #reports}, or if it reported anything but one latency line
     * @throws InterruptedException if interrupted while waiting
     */
    public static ChildReport.Latency latency(Process ping, String what) throws IOException, InterruptedException {
        List<ChildReport> reports = reports(ping, what, 5);
        if (reports.size() != 1 || !(reports.get(0) instanceof ChildReport.Latency latency)) {
            throw new IOException(what + " reported " + reports + ", expected one latency line");
        }
        return latency;
    }

    /**
     * {@return a child's stream read to its end on a virtual thread of its own} Never on the common
     * pool: on two CPUs it has one thread, which a blocked read would hold for ever.
     *
     * @param in the stream
     */
    public static CompletableFuture<String> drainLater(InputStream in) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> text.complete(drain(in)));
        return text;
    }

    /**
     * {@return what is left of a stream, as stripped text}
     *
     * @param in the stream
     */
    public static String drain(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * Kills a process ({@code SIGKILL}: a JVM then writes no class-data archive, see {@link Jvm}) and
     * waits for it.
     *
     * @param process the process, or null
     */
    public static void stop(Process process) {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@return the resident memory of a running process, from {@code /proc/PID/status}, in KiB}
     *
     * @param process the process
     * @throws IOException if it has exited, or its status has no {@code VmRSS} line
     */
    public static long residentKib(Process process) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring("VmRSS:".length()).replace("kB", "").strip());
            }
        }
        throw new IOException("no VmRSS line in /proc/" + process.pid() + "/status");
    }
}
