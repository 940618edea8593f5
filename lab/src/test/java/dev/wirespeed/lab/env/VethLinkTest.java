package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The veth link into a network namespace: traffic crosses it, and closing removes it. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class VethLinkTest {
    private static String namespaces() throws Exception {
        Process ip = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String out = Children.drain(ip.getInputStream());
        assertTrue(ip.waitFor(30, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void carriesEchoesIntoItsNamespaceAndLeavesNothingBehind() throws Exception {
        List<String> notes = new ArrayList<>();
        Optional<Path> many = new CPrograms(notes::add).get(CPrograms.Program.MANY);
        Environment.assume(Feature.C_COMPILER, many.isPresent(), () -> "no C compiler: " + notes);
        Optional<VethLink> opened = VethLink.open(notes::add);
        Environment.assume(Feature.NETWORK_NAMESPACES, opened.isPresent(), () -> "no link on this machine: " + notes);
        String namespace;
        try (VethLink link = opened.get()) {
            namespace = link.namespace();
            assertTrue(namespaces().contains(namespace), namespaces());
            assertTrue(link.describe().startsWith("veth pair into a network namespace, 10gbit"), link.describe());
            Process echo = new ProcessBuilder(link.inside(List.of(many.get().toString(), "echo", VethLink.PEER_ADDRESS,
                    "0"))).start();
            try {
                BufferedReader err = new BufferedReader(new InputStreamReader(echo.getErrorStream(),
                        StandardCharsets.UTF_8));
                Matcher listening = Pattern.compile("listening on 10\\.213\\.0\\.2:(\\d+)").matcher(String.valueOf(
                        err.readLine()));
                assertTrue(listening.matches());
                Process load = new ProcessBuilder(many.get().toString(), "load", VethLink.PEER_ADDRESS,
                        listening.group(1), "4", "500", "8", "100", "1").start();
                String out = new String(load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(load.waitFor(1, TimeUnit.MINUTES));
                assertEquals(0, load.exitValue(), out);
                assertEquals(2_000, ((ChildReport.Load) ChildReports.read(out.strip())).frames());
            } finally {
                echo.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertFalse(namespaces().contains(namespace), namespaces());
    }
}
