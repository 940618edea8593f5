package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.testing.Environment.Feature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class EnvironmentTest {
    private static final Set<Feature> NONE = EnumSet.noneOf(Feature.class);
    private static final Path CI_RUN = Path.of("..", ".ci", "run").toAbsolutePath().normalize();

    @Test
    void aMissingFeatureSkipsTheTestSayingWhy() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Environment.check(NONE, Feature.IO_URING, false, () -> "kernel.io_uring_disabled=2"));
        assertEquals("Assumption failed: io_uring missing: kernel.io_uring_disabled=2", e.getMessage());
    }

    @Test
    void aMissingFeatureTheBuildRequiresFailsTheTest() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> Environment.check(
                EnumSet.of(Feature.IO_URING, Feature.C_COMPILER), Feature.C_COMPILER, false, () -> "no cc on the PATH"));
        assertEquals("cc missing: no cc on the PATH (this build requires io_uring,cc, by -Dwirespeed.requireFeatures or"
                + " WIRESPEED_REQUIRE_FEATURES: on such a machine a skip would hide a failure)", e.getMessage());
    }

    @Test
    void aPresentFeatureGoesOnWithoutAskingWhy() {
        Environment.check(EnumSet.allOf(Feature.class), Feature.EPOLL, true, () -> {
            throw new AssertionError("asked why a present feature is missing");
        });
    }

    @Test
    void theRequirementIsACommaSeparatedListOfFeatureNames() {
        assertEquals(EnumSet.of(Feature.IO_URING, Feature.EPOLL, Feature.C_COMPILER),
                Environment.parse("WIRESPEED_REQUIRE_FEATURES", " io_uring, epoll,,CC "));
        assertEquals(NONE, Environment.parse("WIRESPEED_REQUIRE_FEATURES", ""));
    }

    @Test
    void everyFeatureIsFoundByItsName() {
        for (Feature feature : Feature.values()) {
            assertEquals(EnumSet.of(feature), Environment.parse(Environment.VARIABLE, feature.key()), feature.name());
        }
    }

    /** CI requires every feature: one added here and not there would be a skip that CI cannot see. */
    @Test
    void ciRequiresEveryFeature() throws IOException {
        List<String> lines = Files.readAllLines(CI_RUN);
        int from = lines.indexOf("required=(");
        int to = lines.subList(from + 1, lines.size()).indexOf(")") + from + 1;
        assertTrue(from >= 0 && to > from, CI_RUN + " lists its required features between 'required=(' and ')'");
        Set<Feature> required = Environment.parse(CI_RUN.toString(), lines.subList(from + 1, to).stream()
                .map(line -> line.strip().split("\\s+")[0]).collect(Collectors.joining(",")));
        Set<Feature> left = EnumSet.allOf(Feature.class);
        left.removeAll(required);
        assertEquals(NONE, left, "features " + CI_RUN + " does not require");
    }

    @Test
    void anUnknownFeatureNameIsRefusedNamingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Environment.parse("wirespeed.requireFeatures", "io_uring,iouring"));
        assertEquals("wirespeed.requireFeatures=io_uring,iouring: no feature is called 'iouring'; the features: "
                + "native,epoll,io_uring,libssl,cachestat,cc,chromium,netns,git,openssl,ipv6,disk_tmpdir,utf8_names,"
                + "mallinfo2,boringssl", e.getMessage());
    }
}
