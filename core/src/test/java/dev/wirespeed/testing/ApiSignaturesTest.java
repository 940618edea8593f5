package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** {@link ApiSignatures} on a small module compiled here: what it lists, and the changes it refuses. */
class ApiSignaturesTest {
    @TempDir
    Path dir;

    /** Compiles {@code sources} (path to text) as one module into {@code dir/classes}; {@return that folder} */
    private Path compile(Map<String, String> sources) throws IOException {
        Path src = dir.resolve("src");
        List<String> args = new ArrayList<>(List.of("-parameters", "-d", dir.resolve("classes").toString()));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = src.resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "the fixture compiles");
        return dir.resolve("classes");
    }

    private static final String MODULE = "module m { exports p.api; exports p.hidden to java.base; }";

    private Path module(String apiBody) throws IOException {
        return compile(Map.of("module-info.java", MODULE,
                "p/api/Api.java", "package p.api; public final class Api { " + apiBody + " }",
                "p/api/Helper.java", "package p.api; final class Helper { public void notApi() { } }",
                "p/hidden/Hidden.java", "package p.hidden; public final class Hidden { public void notApi() { } }"));
    }

    /** Lists with a class loader over the fixture, as the module's own test would find its classes. */
    private static List<String> list(Path classes) throws IOException {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ApiSignaturesTest.class.getClassLoader())) {
            return ApiSignatures.list(classes, loader);
        }
    }

    @Test
    void listsThePublicTypesOfUnqualifiedExportsWithTheirMembersAndParameterNames() throws IOException {
        Path classes = module("public static final int LIMIT = 1; public Api(String name) { }"
                + " public int read(java.nio.ByteBuffer dst) throws java.io.IOException { return 0; }"
                + " protected void hook() { } void packagePrivate() { } private void hidden() { }");
        assertEquals(List.of(
                "public final class p.api.Api",
                "  public Api(java.lang.String name)",
                "  public static final int LIMIT",
                "  protected void hook()",
                "  public int read(java.nio.ByteBuffer dst) throws java.io.IOException"), list(classes));
    }

    @Test
    void aSignatureFileThatDiffersFailsNamingTheLinesAddedAndRemoved() throws IOException {
        Path classes = module("public void kept() { } public void added(int count) { }");
        Path file = dir.resolve("m.api");
        Files.write(file, List.of("public final class p.api.Api", "  public Api()", "  public void kept()",
                "  public void removed()"),
                StandardCharsets.UTF_8);
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> ApiSignatures.check(classes, file, ApiSignaturesTest::list));
        assertTrue(e.getMessage().contains("\n-   public void removed()\n+   public void added(int count)\n"),
                e.getMessage());
        assertTrue(e.getMessage().contains("-D" + ApiSignatures.WRITE_PROPERTY + "=true"), e.getMessage());
    }

    @Test
    void anApiThatTakesOrReturnsARawAddressIsRefused() throws IOException {
        Path classes = module("public long address(int id) { return 0; } public void read(long address, int length) { }");
        Path file = dir.resolve("m.api");
        Files.write(file, list(classes), StandardCharsets.UTF_8);
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> ApiSignatures.check(classes, file, ApiSignaturesTest::list));
        assertTrue(e.getMessage().contains("  public long address(int id)\n  public void read(long address, int length)"),
                e.getMessage());
    }

    @Test
    void aMatchingSignatureFilePasses() throws IOException {
        Path classes = module("public void kept() { }");
        Path file = dir.resolve("m.api");
        Files.write(file, list(classes), StandardCharsets.UTF_8);
        ApiSignatures.check(classes, file, ApiSignaturesTest::list);
    }
}
