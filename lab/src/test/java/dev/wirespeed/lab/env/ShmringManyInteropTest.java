package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.shm.RingCommands;
import dev.wirespeed.lab.shm.RingCommands.Run;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The C ring of {@code shmring.c} and the library's {@code ManyToOneRing} read each other's rings of layout 2:
 * two C writers' streams through {@code ring-read --layout many-to-one}, and two {@code ring-write --layout
 * many-to-one} writers' through {@code shmring many-read}, each writer's frames checked apart, over a ring of
 * 4,096 bytes that wraps thousands of times (padding records included: bodies of 100 bytes from the C side,
 * 8 to 300 from the Java side), to every writer's end.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShmringManyInteropTest {
    private static final int FRAMES = 100_000;
    private Path dir;
    private Path shmring;

    @BeforeEach
    void setUp() throws Exception {
        Environment.assume(Feature.NATIVE, NativeSocket.isSupported(), "the native module's system calls: Linux x64");
        List<String> notes = new ArrayList<>();
        Optional<Path> program = new CPrograms(notes::add).get(CPrograms.Program.SHMRING);
        Environment.assume(Feature.C_COMPILER, program.isPresent(), () -> "no C compiler: " + notes);
        shmring = program.get();
        dir = RingCommands.directory("wirespeed-shmring-many");
    }

    @AfterEach
    void remove() throws IOException {
        RingCommands.delete(dir);
    }

    @Test
    void theJavaReaderChecksTwoCWritersStreamsToTheirEnds() throws Exception {
        Path path = dir.resolve("c-to-java");
        CompletableFuture<Run> reader = RingCommands.start("ring-read", "--layout", "many-to-one", "--path",
                path.toString(), "--capacity", "4096", "--writers", "2", "--messages", "10000", "--verify",
                "--sleep", "spin");
        List<Process> writers = new ArrayList<>();
        try {
            for (int w = 0; w < 2; w++) { // each waits for the reader's ring
                writers.add(new ProcessBuilder(shmring.toString(), "many-write", path.toString(), String.valueOf(w),
                        String.valueOf(FRAMES), "100").start());
            }
            Run read = reader.get(60, TimeUnit.SECONDS);
            assertEquals(ExitCode.OK, read.code(), read.err());
            assertTrue(read.out().contains("every frame verified"), read.out());
            assertEquals("ring at " + path, read.err().strip());
            for (int w = 0; w < 2; w++) {
                Process writer = writers.get(w);
                assertTrue(writer.waitFor(30, TimeUnit.SECONDS), "C writer " + w + " is still running");
                BufferedReader err = new BufferedReader(new InputStreamReader(writer.getErrorStream(),
                        StandardCharsets.UTF_8));
                assertEquals("writer " + w + " on " + path, err.readLine());
                assertEquals(0, writer.exitValue(), Children.drain(writer.getErrorStream()));
            }
        } finally {
            writers.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void theCReaderChecksTwoJavaWritersStreamsToTheirEnds() throws Exception {
        Path path = dir.resolve("java-to-c");
        Process reader = new ProcessBuilder(shmring.toString(), "many-read", path.toString(), "4096", "2", "10000", "0")
                .start();
        List<CompletableFuture<Run>> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) { // each waits for the reader's ring
            writers.add(RingCommands.start("ring-write", "--layout", "many-to-one", "--writer", String.valueOf(w),
                    "--path", path.toString(), "--count", String.valueOf(FRAMES), "--size", "8-300", "--wake", "none"));
        }
        List<ChildReport> reports = Children.reports(reader, "shmring many-read", 1);
        ChildReport.Summary summary = (ChildReport.Summary) reports.getLast();
        assertTrue(summary.verified() && summary.frames() > 0 && summary.frames() <= 2L * FRAMES, reports.toString());
        for (CompletableFuture<Run> writer : writers) {
            Run wrote = writer.get(30, TimeUnit.SECONDS);
            assertEquals(ExitCode.OK, wrote.code(), wrote.err());
        }
    }
}
