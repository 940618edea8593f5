package dev.wirespeed.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsFilesTest {
    @TempDir
    Path dir;

    @Test
    void resultsJsonIsValidAgainstTheShippedSchemaAndReadsBackAsWritten() throws Exception {
        LabReport report = SampleReport.create();
        ResultsFiles.write(report, dir);
        String json = Files.readString(dir.resolve("results.json"));
        assertEquals(List.of(), ResultsSchema.validate(json));
        assertEquals(report, ResultsFiles.read(dir.resolve("results.json")));
        assertEquals(ResultsFiles.schema(), Files.readString(dir.resolve("results.schema.json")));
        assertTrue(json.contains("\"holds\" : false"), "verdicts are written: " + json);
        assertEquals(2, report.setAside().size());
        assertTrue(json.contains("\"cause\" : \"untimed\""), "the rows set aside are written, with why: " + json);
    }

    @Test
    void theSchemaRefusesWhatTheRecordsCannotHold() throws Exception {
        ResultsFiles.write(SampleReport.create(), dir);
        String json = Files.readString(dir.resolve("results.json"));
        assertFalse(ResultsSchema.validate(json.replace("\"unit\" : \"MB/s\"", "\"unit\" : \"MiB/s\"")).isEmpty());
        assertFalse(ResultsSchema.validate(json.replace("\"role\" : \"ceiling\"", "\"role\" : \"ours\"")).isEmpty());
        assertFalse(ResultsSchema.validate(json.replace("\"runs\" : 3", "\"runs\" : 0")).isEmpty());
        assertFalse(ResultsSchema.validate(json.replace("0123456789abcdef0123456789abcdef01234567-dirty", "HEAD"))
                .isEmpty());
        assertFalse(ResultsSchema.validate(json.replace("\"mode\" : \"quick\"", "\"mode\" : \"quick\", \"extra\" : 1"))
                .isEmpty());
        assertFalse(ResultsSchema.validate(json.replace("\"cause\" : \"spread\"", "\"cause\" : \"untimed\"")).isEmpty(),
                "an untimed cause needs the untimed figure and the tolerance");
        assertFalse(ResultsSchema.validate(json.replace("\"cause\" : \"untimed\"", "\"cause\" : \"spread\"")).isEmpty(),
                "a spread has neither");
    }

    @Test
    void theCsvHasOneLineForEveryMeasurementWithItsFieldsQuoted() throws Exception {
        LabReport report = SampleReport.create();
        ResultsFiles.write(report, dir);
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(String.join(",", ResultsFiles.CSV_COLUMNS), lines.get(0));
        assertEquals(report.measurements().size() + 1, lines.size());
        assertEquals("tcp,zero-copy,article,tcp,100,different cores,0,1,MB/s,,2483.2000,2359.0400,2607.3600,3,2147.1000,0.6898",
                lines.get(2));
        assertEquals("tcp,wirespeed <- C writer,library,tcp,100,different cores,0,1,MB/s,,2379.8000,2260.8100,2498.7900,3,,"
                + "0.6611", lines.get(3));
        assertEquals("\"a, \"\"b\"\"\"", ResultsFiles.field("a, \"b\""));
    }
}
