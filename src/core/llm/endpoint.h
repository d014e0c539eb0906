#pragma once

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

// One OpenAI-compatible chat completions endpoint: where it is, which model it serves, how to authenticate
// and how to sample. It never holds the API key itself, only where to find it (docs/architecture.md, "Stores
// and files"), so an Endpoint can be saved, logged and shown freely.
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
    QString model;       // the default: what a role that names no model of this endpoint uses
    QStringList models;  // other models the same server serves, so one endpoint can serve several roles
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
    // Plain http:// carries the key in clear text to whoever is on the path. To a host other than this
    // machine that is refused unless the user says the link is trusted (a private network, a VPN): llm.json's
    // "allow_plain_http_key". Loopback needs no such word: the traffic never leaves the machine.
    bool allowPlainHttpKey = false;

    QJsonObject toJson() const; // no key material, by construction
    static Endpoint fromJson(const QJsonObject &o);
    // Empty when usable; otherwise what is wrong, in words for the user.
    QStringList problems() const;
    // Plain http:// to a host that is not this machine: a key sent there travels in clear text.
    bool plainHttpOffMachine() const;
    // The endpoint has a key and plainHttpOffMachine(); whether that is allowed is allowPlainHttpKey's
    // business.
    bool sendsKeyInClear() const { return keySource != KeySource::None && plainHttpOffMachine(); }
    // A host that is this machine by its name or address: localhost, 127.0.0.0/8, ::1. Names are not
    // resolved: a name that happens to point at 127.0.0.1 is not known to be local without asking DNS.
    static bool isLoopbackHost(const QString &host);
    // `model` first, then `models`, without blanks or repeats: what a role may choose from this endpoint.
    QStringList servedModels() const;
    // The same endpoint speaking for one of its models (the default when `which` is empty).
    Endpoint forModel(const QString &which) const;
    // The keychain entry name for this endpoint's key.
    QString keychainKey() const { return QStringLiteral("endpoint/") + name; }

    static QString keySourceName(KeySource source);
    static KeySource keySourceFromName(const QString &name);
};
