package dev.wirespeed.lab.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.util.List;

/** Validates a {@code results.json} against the schema the lab ships. */
public final class ResultsSchema {
    private ResultsSchema() {
    }

    /**
     * {@return what is wrong with {@code json}, one message per violation; empty if it is valid}
     *
     * @param json the text of a results.json
     * @throws IOException if it is not JSON, or the schema is missing
     */
    public static List<String> validate(String json) throws IOException {
        JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(ResultsFiles.schema());
        return schema.validate(new ObjectMapper().readTree(json)).stream().map(ValidationMessage::getMessage).sorted()
                .toList();
    }
}
