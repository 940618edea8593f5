package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The command lines the lab starts its JVMs with. */
class JvmTest {
    private final Jvm jvm = new Jvm("dev.example.Main", null);

    @Test
    void aJvmGetsTheLaunchersFlagsThenItsOwnOptionsThenTheCommand() {
        List<String> plain = jvm.command(-1, "ping", List.of("ping", "--count", "5"));
        assertTrue(plain.containsAll(Jvm.FLAGS), plain.toString());
        assertEquals(List.of("dev.example.Main", "ping", "--count", "5"), plain.subList(plain.size() - 4, plain.size()));

        List<String> pretouched = jvm.command(-1, "ping", List.of("-XX:+AlwaysPreTouch"), List.of("ping"));
        assertTrue(pretouched.contains(Jvm.LAUNCHER_GC), "an option that chooses no collector keeps the launcher's");
        assertTrue(pretouched.indexOf("-XX:+AlwaysPreTouch") < pretouched.indexOf("dev.example.Main"), pretouched.toString());
    }

    @Test
    void anOptionThatChoosesACollectorReplacesTheLaunchersOne() {
        List<String> zgc = jvm.command(-1, "ping", List.of("-XX:+UseZGC"), List.of("ping"));
        assertFalse(zgc.contains(Jvm.LAUNCHER_GC), zgc.toString());
        assertTrue(zgc.contains("-XX:+UseZGC"));
        assertTrue(zgc.contains("--enable-native-access=ALL-UNNAMED"), "the other launcher flags stay");
        List<String> epsilon = jvm.command(-1, "ping", List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC"),
                List.of("ping"));
        assertFalse(epsilon.contains(Jvm.LAUNCHER_GC), epsilon.toString());
    }

    /** Kept live across the second reading of {@link #theLiveHeapIsReadAfterAFullCollection}. */
    private static byte[] kept;

    @Test
    void theLiveHeapIsReadAfterAFullCollection() throws Exception {
        long pid = ProcessHandle.current().pid();
        long before = Jvm.liveHeapKib(pid);
        kept = new byte[64 << 20];
        byte[] garbage = new byte[64 << 20];
        garbage[1] = 1;
        garbage = null;
        long with = Jvm.liveHeapKib(pid);
        long grown = with - before;
        // The 64 MiB kept, and not the 64 MiB of garbage beside it, give or take what the JVM made meanwhile.
        assertTrue(grown >= (64 << 10) - 1024 && grown < (96 << 10), "live heap " + before + " KiB, then " + with
                + " KiB with 64 MiB kept and 64 MiB of garbage");
        kept = null;
    }
}
