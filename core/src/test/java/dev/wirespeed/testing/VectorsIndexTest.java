package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** INDEX.tsv lists every vector file once, and the frame reader's fuzz corpus holds every vector. */
class VectorsIndexTest {
    private static Path folder(String resource) throws URISyntaxException {
        return Path.of(VectorsIndexTest.class.getResource(resource).toURI());
    }

    /** {@return the names of the files in {@code dir} that start with {@code prefix} and end with {@code suffix}} */
    private static TreeSet<String> names(Path dir, String prefix, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix) && n.endsWith(suffix))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void theIndexListsEveryVectorFileOnce() throws Exception {
        List<String> indexed = Vectors.all().stream().map(Vectors::file).toList();
        assertEquals(indexed.size(), new TreeSet<>(indexed).size(), "a file listed twice: " + indexed);
        assertEquals(names(folder("/vectors"), "", ".bin"), new TreeSet<>(indexed));
    }

    @Test
    void theFuzzCorpusHoldsEveryVectorWithTheDefaultAndATightLimit() throws Exception {
        Path corpus = folder("/dev/wirespeed/frame/FrameReaderFuzzTestInputs/anyBytesGiveFramesThenACleanEndOrOneProtocolError");
        assertEquals(Vectors.fuzzCorpusNames(), names(corpus, "vector-", ""));
    }
}
