package dev.wirespeed.lab.experiments.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The idle part run as the lab runs it, quick mode, unpinned: the library's ring in two JVMs, the C ring's
 * {@code write-idle} and {@code read-wakes}, and the futex probe, each started with the arguments the
 * runner gives it and read back as a row of wake-ups. Three idle periods of a second a row. And the
 * many-writer stream with two writers the same way: every peer's reader and writers, read back as a rate.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShmRunsTest {
    @Test
    void theIdlePartRunsTheLibrarysRingTheCRingAndTheFutexProbeEachReportingItsWakeUps() throws Exception {
        Environment.assume(Feature.NATIVE, NativeSocket.isSupported(), "the futex of the native module: Linux x64");
        List<String> notes = new ArrayList<>();
        Optional<Path> shmring = new CPrograms(notes::add).get(CPrograms.Program.SHMRING);
        Environment.assume(Feature.C_COMPILER, shmring.isPresent(), () -> "no C compiler: " + notes);
        LabContext lab = new LabContext(Mode.QUICK, new Jvm(Main.class.getName(), null),
                new PrintWriter(Writer.nullWriter()), false);
        ShmResult result;
        try (ShmRuns runs = new ShmRuns(lab, shmring.get())) {
            result = runs.run(new ShmCell(Placement.UNPINNED, Part.IDLE));
        }
        Map<Peer, ShmResult.Wakeup> byPeer = ((ShmResult.Wakeups) result).byPeer();
        assertEquals(Set.of(Peer.WIRESPEED, Peer.C, Peer.FUTEX), byPeer.keySet());
        byPeer.forEach((peer, wake) -> {
            assertEquals(1, wake.p50().runs(), peer + ": one run in quick mode");
            assertTrue(wake.p50().median() > 0 && wake.p50().median() <= wake.max().median()
                    && wake.max().median() < 1e6, peer + ": woken within the second after its send: " + wake);
        });
    }

    @Test
    void theManyWriterStreamRunsEveryPeerWithTwoWriterProcessesEachReportingItsRate() throws Exception {
        Environment.assume(Feature.NATIVE, NativeSocket.isSupported(), "the native module: Linux x64");
        List<String> notes = new ArrayList<>();
        Optional<Path> shmring = new CPrograms(notes::add).get(CPrograms.Program.SHMRING);
        Environment.assume(Feature.C_COMPILER, shmring.isPresent(), () -> "no C compiler: " + notes);
        LabContext lab = new LabContext(Mode.QUICK, new Jvm(Main.class.getName(), null),
                new PrintWriter(Writer.nullWriter()), false);
        ShmResult result;
        try (ShmRuns runs = new ShmRuns(lab, shmring.get())) {
            result = runs.run(new ShmCell(Placement.UNPINNED, Part.MANY_STREAM, 2));
        }
        Map<Peer, ShmResult.Rate> byPeer = ((ShmResult.Rates) result).byPeer();
        assertEquals(Set.of(Peer.WIRESPEED, Peer.AGRONA, Peer.AERON, Peer.C), byPeer.keySet());
        byPeer.forEach((peer, rate) -> assertTrue(rate.msgPerSec().median() > 0 && rate.cpuNsPerMsg().median() > 0,
                peer + ": frames counted, and the reader's CPU: " + rate));
    }
}
