#include "llm/endpointpresets.h"

namespace {
EndpointPreset make(const QString &id, const QString &label, const QString &url, Endpoint::KeySource source,
                    const QString &env, const QString &model, const QString &note)
{
    EndpointPreset p;
    p.id = id;
    p.label = label;
    p.endpoint.name = id;
    p.endpoint.preset = id;
    p.endpoint.baseUrl = url;
    p.endpoint.keySource = source;
    p.endpoint.keyEnvVar = env;
    p.endpoint.model = model;
    p.note = note;
    return p;
}
} // namespace

QList<EndpointPreset> EndpointPresets::all()
{
    using KS = Endpoint::KeySource;
    QList<EndpointPreset> presets{
        make(QStringLiteral("openai-compatible"), QStringLiteral("OpenAI-compatible server"),
             QStringLiteral("http://localhost:8000/v1"), KS::None, QString(), QString(),
             QStringLiteral("Any server that speaks the OpenAI chat completions API. Set its base URL (up to "
                            "/v1) and the models it serves; type a key only if it wants one.")),
        make(QStringLiteral("vllm"), QStringLiteral("vLLM"), QStringLiteral("http://localhost:8000/v1"),
             KS::None, QStringLiteral("VLLM_API_KEY"), QStringLiteral("openai/gpt-oss-120b"),
             QStringLiteral(
                 "vLLM's default port is 8000; a key is needed only when the server was started with "
                 "--api-key (then choose 'env' and set VLLM_API_KEY).")),
        make(QStringLiteral("sglang"), QStringLiteral("SGLang"), QStringLiteral("http://localhost:30000/v1"),
             KS::None, QString(), QString(),
             QStringLiteral("SGLang's default port is 30000; the model is the served model path or name.")),
        make(
            QStringLiteral("ollama"), QStringLiteral("Ollama"), QStringLiteral("http://localhost:11434/v1"),
            KS::None, QString(), QString(),
            QStringLiteral("Ollama's OpenAI-compatible API lives under /v1 on port 11434; no key. Whether it "
                           "honours reasoning_effort depends on the Ollama version (unsure).")),
        make(QStringLiteral("llamacpp"), QStringLiteral("llama.cpp server"),
             QStringLiteral("http://localhost:8080/v1"), KS::None, QStringLiteral("LLAMA_API_KEY"),
             QStringLiteral("default"),
             QStringLiteral(
                 "llama-server listens on 8080 by default and serves one model whatever the name; a "
                 "key only with --api-key.")),
        make(QStringLiteral("bedrock"), QStringLiteral("Amazon Bedrock (OpenAI-compatible)"),
             QStringLiteral("https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1"), KS::Keychain,
             QStringLiteral("AWS_BEARER_TOKEN_BEDROCK"), QStringLiteral("openai.gpt-oss-120b-1:0"),
             QStringLiteral(
                 "UNSURE: the URL pattern (bedrock-runtime.<region>.amazonaws.com/openai/v1) and the "
                 "model ids are from AWS's announcement for the gpt-oss models; it authenticates with "
                 "a Bedrock API key as a Bearer token, not SigV4. Check the region and model id.")),
        make(QStringLiteral("openrouter"), QStringLiteral("OpenRouter"),
             QStringLiteral("https://openrouter.ai/api/v1"), KS::Keychain,
             QStringLiteral("OPENROUTER_API_KEY"), QStringLiteral("openai/gpt-oss-120b"),
             QStringLiteral("Bearer key. The optional HTTP-Referer and X-Title headers identify the app.")),
        make(QStringLiteral("openai"), QStringLiteral("OpenAI"), QStringLiteral("https://api.openai.com/v1"),
             KS::Keychain, QStringLiteral("OPENAI_API_KEY"), QStringLiteral("gpt-4.1-mini"),
             QStringLiteral(
                 "Bearer key. Reasoning models reject temperature/top_p and want max_completion_tokens "
                 "rather than max_tokens (unsure for every model): leave those unset for them.")),
    };
    for (EndpointPreset &p : presets)
        if (p.id == QStringLiteral("openrouter"))
            p.endpoint.extraHeaders = {{QStringLiteral("X-Title"), QStringLiteral("AccelOpt Workbench")}};
    return presets;
}

const EndpointPreset *EndpointPresets::find(const QString &id)
{
    static const QList<EndpointPreset> presets = all();
    for (const EndpointPreset &p : presets)
        if (p.id == id)
            return &p;
    return nullptr;
}
