package dev.wirespeed.lab.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Where a lab run's figures come from: the command that made them, the code it ran, when, and for how
 * long. Every output of a run names it, so that a figure is never quoted without its command.
 *
 * @param command the command line as typed at the launcher, program first, each argument quoted as
 *     a POSIX shell would need it: {@code ./wirespeed lab --out docs/results/latest}
 * @param commit the git commit of the checkout the lab runs from: 40 hex digits, then {@code -dirty}
 *     where tracked files differ from it; {@value #UNKNOWN} outside a checkout or without {@code git}
 * @param started when the run started: UTC, ISO-8601, to the second ({@code 2026-11-26T10:15:30Z})
 * @param seconds how long the run took, in whole seconds, {@code >= 0}
 */
public record Provenance(String command, String commit, String started, long seconds) {
    /** The commit of a lab that does not run from a git checkout, or where {@code git} cannot say. */
    public static final String UNKNOWN = "unknown";

    /** How the command line names the launcher: the script at the checkout's root. */
    static final String LAUNCHER = "./wirespeed";

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,+@%^-]+");
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");

    /** Checks the values. */
    public Provenance {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(commit, "commit");
        Instant.parse(Objects.requireNonNull(started, "started"));
        if (seconds < 0) {
            throw new IllegalArgumentException("seconds=" + seconds + " min=0");
        }
    }

    /**
     * {@return the provenance of a run that starts now}, its duration still 0 (see {@link #finished}),
     * its commit that of the checkout holding the lab's code
     *
     * @param args the command line's arguments after the launcher, as the lab was given them
     */
    public static Provenance begin(List<String> args) {
        return new Provenance(commandLine(args), commitOf(codeLocation(), "git"),
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), 0);
    }

    /**
     * {@return this provenance with the run's duration}, from its start to {@code end}
     *
     * @param end when the run ended
     */
    public Provenance finished(Instant end) {
        return new Provenance(command, commit, started, Math.max(0, Duration.between(Instant.parse(started), end).toSeconds()));
    }

    /** {@return the launcher and {@code args}, each quoted where a POSIX shell would split or expand it} */
    static String commandLine(List<String> args) {
        List<String> words = new ArrayList<>(List.of(LAUNCHER));
        for (String arg : args) {
            words.add(PLAIN.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'");
        }
        return String.join(" ", words);
    }

    /**
     * {@return the commit checked out where {@code dir} is}, with {@code -dirty} where tracked files
     * differ from it, or {@value #UNKNOWN} if {@code dir} is null, not in a checkout, or {@code git}
     * cannot be run; never throws
     *
     * @param dir a folder in the checkout, or null
     * @param git the {@code git} program
     */
    static String commitOf(Path dir, String git) {
        if (dir == null) {
            return UNKNOWN;
        }
        String head = run(dir, git, "rev-parse", "--verify", "HEAD");
        if (head == null || !COMMIT.matcher(head.strip()).matches()) {
            return UNKNOWN;
        }
        String changes = run(dir, git, "status", "--porcelain", "--untracked-files=no");
        return head.strip() + (changes == null || changes.isBlank() ? "" : "-dirty");
    }

    /** {@return the folder the lab's classes were loaded from (its jar's folder), or null} */
    private static Path codeLocation() {
        try {
            Path code = Path.of(Provenance.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isDirectory(code) ? code : code.getParent();
        } catch (Exception e) { // no code source, not a file, a security manager: the commit is unknown
            return null;
        }
    }

    /** {@return what {@code git args} printed, or null if it could not run or failed} */
    private static String run(Path dir, String git, String... args) {
        List<String> command = new ArrayList<>(List.of(git, "-C", dir.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        // The checkout is the one around dir, whatever the caller's environment points git at.
        builder.environment().keySet().removeAll(List.of("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return null; // no git
        }
        try (InputStream out = process.getInputStream()) {
            process.getOutputStream().close();
            String text = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                return null;
            }
            return process.exitValue() == 0 ? text : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            process.destroy();
        }
    }

    /** {@return the duration in words: {@code 58 s}, {@code 4 min 26 s}, {@code 1 h 2 min}} */
    String took() {
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min " + seconds % 60 + " s";
        }
        return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
    }

    /** {@return the start, as {@code 2026-11-26 10:15:30 UTC}} */
    String startedInWords() {
        return started.replace('T', ' ').replace("Z", " UTC");
    }

    @Override
    public String toString() {
        return command + " at " + commit + ", " + startedInWords() + ", " + took();
    }
}
