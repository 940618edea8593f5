package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs of the machine: a test that cannot run without a feature calls
 * {@link #assume(Feature, boolean, Supplier)} rather than {@code assumeTrue}, so that the skip says what
 * is missing, and so that a build that knows the machine has the feature turns the skip into a failure.
 *
 * <pre>{@code
 * IoUringSupport kernel = IoUringSupport.kernel();
 * Environment.assume(Feature.IO_URING, kernel.available(), kernel::unavailableReason);
 * }</pre>
 *
 * <p>The features a build requires are named, comma-separated, by the system property
 * {@value #PROPERTY} or, where it is not set, the environment variable {@value #VARIABLE}:
 * {@code io_uring,epoll,cc}. {@code .ci/run} sets the variable to every feature (a test here checks that
 * its list names each one), so that on CI no test skips for want of what the machine should have. A name
 * that is not a feature's fails every check that reads it, so that a typo cannot require nothing; an
 * empty value requires nothing here, and {@code .ci/run} takes it as unset.
 *
 * <p>A skip that is about the machine goes through here, never through {@code Assumptions} or a quiet
 * fallback to something else than the test's name says; a skip of a build's own choice (the native
 * module's second run without its system call stub) need not, and an {@code @EnabledOnOs} guard is kept
 * only for a class whose subject is one operating system's API.
 *
 * <p>Thread safety: stateless; the requirement is read at each check.
 */
public final class Environment {
    /** The system property naming the required features. */
    public static final String PROPERTY = "wirespeed.requireFeatures";
    /** The environment variable naming them where the property is not set. */
    public static final String VARIABLE = "WIRESPEED_REQUIRE_FEATURES";

    /** What a test may need of the machine; add one where a test needs another. */
    public enum Feature {
        /** The native module's FFM calls: Linux on x64. */
        NATIVE("native"),
        /** {@code epoll(7)} through the native module. */
        EPOLL("epoll"),
        /** A ring opens here: Linux 6.0 or later, io_uring not disabled, not filtered by seccomp. */
        IO_URING("io_uring"),
        /** OpenSSL 3's {@code libssl.so.3} and {@code libcrypto.so.3}, for the native module's TLS engine. */
        LIBSSL("libssl"),
        /** {@code cachestat(2)} (Linux 6.5), for reading files straight into arrays. */
        CACHESTAT("cachestat"),
        /** A C compiler, {@code cc}, for the lab's C programs. */
        C_COMPILER("cc"),
        /** A headless Chromium, for rendering the lab's report. */
        CHROMIUM("chromium"),
        /** Network namespaces and a veth pair between them: root and {@code ip}. */
        NETWORK_NAMESPACES("netns"),
        /** The {@code git} command, for what the lab reads of its checkout. */
        GIT("git"),
        /** The {@code openssl} command, whose {@code s_client} is a TLS peer nobody here wrote. */
        OPENSSL("openssl"),
        /**
         * An IPv6 loopback: {@code ::1} binds, which it does not where the kernel has no IPv6 or
         * {@code net.ipv6.conf.lo.disable_ipv6=1}.
         */
        IPV6_LOOPBACK("ipv6"),
        /**
         * {@code java.io.tmpdir} on a file system that drops a file's pages from the page cache when
         * {@code posix_fadvise(POSIX_FADV_DONTNEED)} asks: not tmpfs, which keeps every page in memory.
         */
        DISK_TMPDIR("disk_tmpdir"),
        /**
         * File names in UTF-8: the JVM's {@code sun.jnu.encoding} is UTF-8, as under a UTF-8 locale
         * ({@code LANG=C.UTF-8}); under the C locale it is ASCII, and a name outside ASCII is refused.
         */
        UTF8_FILE_NAMES("utf8_names"),
        /** glibc's {@code mallinfo2(3)} (2.33 and later), for reading what the C heap holds. */
        MALLINFO2("mallinfo2"),
        /**
         * The tests' Netty OpenSSL, {@code netty-tcnative-boringssl-static}, whose jar is Linux x86-64's: the
         * lab's TLS peer on OpenSSL.
         */
        NETTY_BORINGSSL("boringssl");

        private final String key;

        Feature(String key) {
            this.key = key;
        }

        /** {@return the feature's name in {@value Environment#PROPERTY}} */
        public String key() {
            return key;
        }
    }

    private Environment() {
    }

    /**
     * Goes on where {@code present}; else skips the test saying what is missing, or fails it where the
     * build requires {@code feature}.
     *
     * @param feature what the test needs
     * @param present whether this machine has it
     * @param whyMissing why not, in words (asked only where it is missing)
     */
    public static void assume(Feature feature, boolean present, Supplier<String> whyMissing) {
        check(required(), feature, present, whyMissing);
    }

    /**
     * {@link #assume(Feature, boolean, Supplier)} with the reason at hand.
     *
     * @param feature what the test needs
     * @param present whether this machine has it
     * @param whyMissing why not, in words
     */
    public static void assume(Feature feature, boolean present, String whyMissing) {
        assume(feature, present, () -> whyMissing);
    }

    /** {@return the features this build requires} */
    public static Set<Feature> required() {
        String property = System.getProperty(PROPERTY);
        if (property != null) {
            return parse(PROPERTY, property);
        }
        String variable = System.getenv(VARIABLE);
        return variable == null ? EnumSet.noneOf(Feature.class) : parse(VARIABLE, variable);
    }

    static void check(Set<Feature> required, Feature feature, boolean present, Supplier<String> whyMissing) {
        if (present) {
            return;
        }
        String missing = feature.key() + " missing: " + whyMissing.get();
        if (required.contains(feature)) {
            fail(missing + " (this build requires " + keys(required) + ", by -D" + PROPERTY + " or " + VARIABLE
                    + ": on such a machine a skip would hide a failure)");
        }
        Assumptions.assumeTrue(false, missing);
    }

    static Set<Feature> parse(String source, String names) {
        Set<Feature> features = EnumSet.noneOf(Feature.class);
        for (String name : names.split(",")) {
            String key = name.strip().toLowerCase(Locale.ROOT);
            if (key.isEmpty()) {
                continue;
            }
            features.add(Arrays.stream(Feature.values()).filter(f -> f.key().equals(key)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(source + "=" + names + ": no feature is called '" + key
                            + "'; the features: " + keys(EnumSet.allOf(Feature.class)))));
        }
        return features;
    }

    private static String keys(Set<Feature> features) {
        return features.stream().map(Feature::key).collect(Collectors.joining(","));
    }
}
