#pragma once

#include "llm/endpoint.h"

#include <QList>

// Starting points for the OpenAI-compatible servers users run most. A preset fills base URL, auth style and
// key source; the user supplies the model (and the host or region where the URL has a placeholder). `note`
// says what we are sure of and what we are not.
struct EndpointPreset
{
    QString id;    // "vllm", "sglang", "ollama", "llamacpp", "bedrock", "openrouter", "openai"
    QString label; // for menus
    Endpoint endpoint;
    QString note;
};

namespace EndpointPresets {
QList<EndpointPreset> all();
const EndpointPreset *find(const QString &id);
} // namespace EndpointPresets
