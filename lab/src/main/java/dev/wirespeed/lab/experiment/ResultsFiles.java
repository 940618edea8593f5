package dev.wirespeed.lab.experiment;

import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** {@code results.json} and {@code results.csv}: every row and finding of a lab run. */
final class ResultsFiles {
    private ResultsFiles() {
    }

    static String json(LabRun lab) {
        StringBuilder out = new StringBuilder("{\n  \"machine\": {");
        StringJoiner machine = new StringJoiner(", ");
        for (Map.Entry<String, String> entry : Machine.describe().entrySet()) {
            machine.add(Json.string(entry.getKey()) + ": " + Json.string(entry.getValue()));
        }
        out.append(machine).append("},\n  \"jdk\": ").append(Json.string(Machine.jdk())).append(",\n  \"mode\": ")
                .append(Json.string(lab.mode.name().toLowerCase(Locale.ROOT))).append(",\n  \"rows\": [");
        StringJoiner rows = new StringJoiner(",\n    ", "\n    ", "\n  ");
        rows.setEmptyValue("");
        for (Row row : lab.rows) {
            rows.add("{\"experiment\": " + Json.string(row.experiment()) + ", \"case\": " + Json.string(row.kase())
                    + ", \"transport\": " + Json.string(row.transport()) + ", \"placement\": "
                    + Json.string(row.placement()) + ", \"unit\": " + Json.string(row.unit()) + ", \"median\": "
                    + Json.number(row.stats().median()) + ", \"min\": " + Json.number(row.stats().min())
                    + ", \"max\": " + Json.number(row.stats().max()) + ", \"runs\": " + row.stats().count()
                    + ", \"size\": " + row.size() + ", \"published\": " + Json.number(row.published())
                    + ", \"ours\": " + row.ours() + ", \"ceiling\": " + row.ceiling() + ", \"peer\": " + row.peer()
                    + (row.percentile() == null ? "" : ", \"percentile\": " + Json.string(row.percentile())) + "}");
        }
        out.append(rows).append("],\n  \"findings\": [");
        StringJoiner findings = new StringJoiner(",\n    ", "\n    ", "\n  ");
        findings.setEmptyValue("");
        for (Finding finding : lab.findings) {
            findings.add("{\"finding\": " + Json.string(finding.finding()) + ", \"holds\": " + finding.holds()
                    + ", \"figures\": " + Json.string(finding.figures()) + "}");
        }
        out.append(findings).append("],\n  \"notes\": [");
        StringJoiner notes = new StringJoiner(", ");
        lab.notes.forEach(note -> notes.add(Json.string(note)));
        return out.append(notes).append("]\n}\n").toString();
    }

    static String csv(LabRun lab) {
        StringBuilder out = new StringBuilder(
                "experiment,case,transport,placement,unit,median,min,max,runs,size,published,ours,ceiling,peer,percentile\n");
        for (Row row : lab.rows) {
            out.append(String.join(",", row.experiment(), row.kase(), row.transport(), '"' + row.placement() + '"',
                    row.unit(), Json.number(row.stats().median()), Json.number(row.stats().min()),
                    Json.number(row.stats().max()), String.valueOf(row.stats().count()), String.valueOf(row.size()),
                    Double.isNaN(row.published()) ? "" : Json.number(row.published()), String.valueOf(row.ours()),
                    String.valueOf(row.ceiling()), String.valueOf(row.peer()),
                    row.percentile() == null ? "" : row.percentile())).append('\n');
        }
        return out.toString();
    }
}
