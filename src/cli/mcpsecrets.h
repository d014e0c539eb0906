#pragma once

#include <QStringList>

// The values `accelopt mcp` must never send to its client, whatever a tool or an error message carries: the
// API keys llm.json names by environment variable, and every environment variable whose name says it is a
// secret (…KEY, …TOKEN, …SECRET, …PASSWORD, …PASSPHRASE, …CREDENTIAL…). Short values are left out: "1" in
// ACCELOPT_NO_KEYCHAIN is no secret, and replacing it would garble every number.
class McpSecrets
{
public:
    static constexpr int minimumLength = 8;
    static QStringList collect();
};
