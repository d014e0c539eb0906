#pragma once

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

// One OpenAI-compatible chat completions endpoint: where it is, which model it serves, how to authenticate
// and how to sample. It never holds the API key itself, only where to find it (DESIGN.md §11), so an Endpoint
// can be saved, logged and shown freely.
struct Endpoint
{
    enum class KeySource
    {
        None,        // local servers (vLLM, SGLang, Ollama, llama.cpp) usually need no key
        Environment, // read the variable named keyEnvVar
        Keychain,    // the system keychain (QtKeychain), falling back to keyEnvVar when it is unavailable
    };
    enum class AuthStyle
    {
        Bearer,      // Authorization: Bearer <key> (OpenAI, OpenRouter, vLLM --api-key, Bedrock API keys)
        ApiKeyHeader // <authHeader>: <key>, for gateways that want e.g. "api-key" or "x-api-key"
    };

    QString name;    // unique, what the roster refers to
    QString preset;  // the preset it started from, informational ("vllm", "openai", ...)
    QString baseUrl; // up to and including /v1; the client appends /chat/completions
    QString model;
    KeySource keySource = KeySource::None;
    QString keyEnvVar; // for Environment, and the fallback for Keychain
    AuthStyle authStyle = AuthStyle::Bearer;
    QString authHeader = QStringLiteral("api-key"); // header name for AuthStyle::ApiKeyHeader
    QList<QPair<QString, QString>> extraHeaders;    // e.g. OpenRouter's HTTP-Referer / X-Title
    std::optional<double> temperature;              // unset: the server's default
    std::optional<double> topP;
    std::optional<int> maxTokens;
    QString reasoningEffort; // "", "low", "medium", "high": sent as reasoning_effort when set
    int timeoutMs = 600000;  // per attempt; reasoning models can take minutes
    int concurrency = 4;     // calls in flight at once on this endpoint
    // Send each call's `seed` (OpenAI's sampling seed, honoured by vLLM and SGLang too): the N plans and K
    // samples of one prompt differ, and a rerun draws the same. Off for servers that reject the field.
    bool sendSeed = true;

    QJsonObject toJson() const; // no key material, by construction
    static Endpoint fromJson(const QJsonObject &o);
    // Empty when usable; otherwise what is wrong, in words for the user.
    QStringList problems() const;
    // The keychain entry name for this endpoint's key.
    QString keychainKey() const { return QStringLiteral("endpoint/") + name; }

    static QString keySourceName(KeySource source);
    static KeySource keySourceFromName(const QString &name);
};
