package dev.wirespeed.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a run's figures come from: its command as typed, its commit (or "unknown"), its start and length. */
class ProvenanceTest {
    @TempDir
    Path dir;

    @Test
    void theCommandIsTheLauncherAndItsArgumentsQuotedAsAShellNeedsThem() {
        assertEquals("./wirespeed lab --quick --out docs/results/latest readall",
                Provenance.commandLine(List.of("lab", "--quick", "--out", "docs/results/latest", "readall")));
        assertEquals("./wirespeed lab --out 'my results' 'it'\\''s' '' '$HOME' 'a*'",
                Provenance.commandLine(List.of("lab", "--out", "my results", "it's", "", "$HOME", "a*")));
    }

    @Test
    void outsideACheckoutTheCommitIsUnknown() {
        assertEquals(Provenance.UNKNOWN, Provenance.commitOf(dir, "git"));
        assertEquals(Provenance.UNKNOWN, Provenance.commitOf(null, "git"));
    }

    @Test
    void withoutGitTheCommitIsUnknown() {
        assertEquals(Provenance.UNKNOWN, Provenance.commitOf(dir, dir.resolve("no-such-git").toString()));
    }

    @Test
    void inACheckoutTheCommitIsHeadAndDirtyOnlyWhileTrackedFilesDiffer() throws Exception {
        Environment.assume(Feature.GIT, git("--version") != null, () -> "git is not installed");
        Path repo = Files.createDirectories(dir.resolve("repo"));
        Files.writeString(repo.resolve("a.txt"), "one\n");
        for (List<String> command : List.of(List.of("init", "-q"), List.of("add", "a.txt"),
                List.of("-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "one"))) {
            List<String> args = new ArrayList<>(List.of("-C", repo.toString()));
            args.addAll(command);
            assertTrue(git(args.toArray(String[]::new)) != null, "git " + command);
        }
        String head = git("-C", repo.toString(), "rev-parse", "HEAD").strip();
        Path sub = Files.createDirectories(repo.resolve("lab/target"));
        assertEquals(head, Provenance.commitOf(sub, "git"), "from a folder inside the checkout");
        Files.writeString(repo.resolve("untracked.txt"), "new\n");
        assertEquals(head, Provenance.commitOf(repo, "git"), "an untracked file changes no figure's code");
        Files.writeString(repo.resolve("a.txt"), "two\n");
        assertEquals(head + "-dirty", Provenance.commitOf(repo, "git"));
    }

    @Test
    void aFinishedRunCountsWholeSecondsFromItsStart() {
        Provenance begun = Provenance.begin(List.of("lab", "--quick"));
        assertEquals("./wirespeed lab --quick", begun.command());
        assertEquals(0, begun.seconds());
        Instant started = Instant.parse(begun.started());
        Provenance done = begun.finished(started.plusMillis(266_900));
        assertEquals(266, done.seconds());
        assertEquals("4 min 26 s", done.took());
        assertEquals("58 s", new Provenance("x", "unknown", "2026-11-26T10:15:30Z", 58).took());
        assertEquals("1 h 2 min", new Provenance("x", "unknown", "2026-11-26T10:15:30Z", 3725).took());
        assertEquals("2026-11-26 10:15:30 UTC", new Provenance("x", "unknown", "2026-11-26T10:15:30Z", 0).startedInWords());
    }

    @Test
    void aNegativeDurationOrABadDateIsRefused() {
        assertEquals("seconds=-1 min=0", assertThrows(IllegalArgumentException.class,
                () -> new Provenance("x", "unknown", "2026-11-26T10:15:30Z", -1)).getMessage());
        assertThrows(java.time.format.DateTimeParseException.class, () -> new Provenance("x", "unknown", "yesterday", 0));
    }

    /** {@return what git printed, or null if it failed or is missing} */
    private static String git(String... args) throws InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return process.waitFor() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        }
    }
}
