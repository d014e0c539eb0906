#include "llm/chatclient.h"

#include "common/logcategories.h"
#include "llm/costledger.h"
#include "llm/llmcallrecorder.h"
#include "llm/replycaps.h"
#include "llm/ssedecoder.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>
#include <QUrl>

struct ChatClient::Call
{
    quint64 id = 0;
    ChatRequest request;
    QDateTime startedUtc;
    QElapsedTimer clock;
    int attempt = 0;
    QNetworkReply *reply = nullptr;
    QTimer *timeout = nullptr; // owned by the client; deleted later, as they may be the signal's sender
    QTimer *backoff = nullptr;
    bool timedOut = false;
    bool tooLarge = false;
    bool holdsSlot = false;
    QByteArray body;
    qint64 received = 0;    // bytes of this attempt's reply, streamed or not, for the size cap
    bool delivered = false; // delta() gave something of this call to listeners
    // Streaming state, reset per attempt.
    SseDecoder sse;
    bool streaming = false;
    QString content; // kept only up to the role's cap (ReplyCaps)...
    QString reasoning;
    qsizetype contentChars = 0; // ...while these count all that arrived
    qsizetype reasoningChars = 0;
    QString finishReason;
    std::optional<TokenUsage> usage;
    QString streamError;
};

namespace {
std::optional<TokenUsage> usageFrom(const QJsonValue &value)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject u = value.toObject();
    if (!u.contains(QStringLiteral("prompt_tokens")) && !u.contains(QStringLiteral("completion_tokens")))
        return std::nullopt;
    return TokenUsage{u.value(QStringLiteral("prompt_tokens")).toInteger(),
                      u.value(QStringLiteral("completion_tokens")).toInteger()};
}

QString reasoningOf(const QJsonObject &message)
{
    // vLLM, SGLang and DeepSeek say reasoning_content; OpenRouter and Ollama say reasoning.
    const QString a = message.value(QStringLiteral("reasoning_content")).toString();
    return a.isEmpty() ? message.value(QStringLiteral("reasoning")).toString() : a;
}

// The server's own words about an error, when the body is the usual {"error": {"message": ...}}.
QString serverMessage(const QByteArray &body)
{
    const QJsonObject o = QJsonDocument::fromJson(body).object();
    const QJsonValue error = o.value(QStringLiteral("error"));
    QString text =
        error.isObject() ? error.toObject().value(QStringLiteral("message")).toString() : error.toString();
    if (text.isEmpty())
        text = QString::fromUtf8(body.left(300)).simplified();
    return text.left(500);
}

bool transientNetworkError(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::UnknownNetworkError:
        return true;
    default:
        return false;
    }
}
} // namespace

ChatClient::ChatClient(const Endpoint &endpoint, QObject *parent)
    : QObject(parent), m_endpoint(endpoint), m_rng(QRandomGenerator::securelySeeded())
{
}

QNetworkAccessManager *ChatClient::network(qsizetype &lane)
{
    // QNetworkAccessManager opens at most 6 HTTP/1.1 connections per server and queues the rest, which would
    // cap an endpoint's concurrency at 6 (local vLLM and SGLang speak HTTP/1.1). So calls spread over as many
    // managers as the concurrency limit needs, each call to the least busy one.
    const qsizetype wanted =
        std::max(1, (m_endpoint.concurrency + kConnectionsPerManager - 1) / kConnectionsPerManager);
    lane = 0;
    for (qsizetype i = 1; i < m_networks.size(); ++i)
        if (m_lanesInUse.at(i) < m_lanesInUse.at(lane))
            lane = i;
    if (m_networks.isEmpty() ||
        (m_lanesInUse.at(lane) >= kConnectionsPerManager && m_networks.size() < wanted)) {
        auto *manager = new QNetworkAccessManager(this);
        // Redirects would carry the auth header to wherever the server points; an API endpoint has no
        // business redirecting, so don't follow.
        manager->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        m_networks << manager;
        m_lanesInUse << 0;
        lane = m_networks.size() - 1;
    }
    ++m_lanesInUse[lane];
    return m_networks.at(lane);
}

ChatClient::~ChatClient()
{
    // Finishing calls now would emit into a half-destroyed object; drop them quietly instead.
    blockSignals(true);
    for (auto &[id, call] : m_calls)
        if (call->reply) {
            call->reply->disconnect(this);
            call->reply->abort();
        }
    // The managers delete their replies, whose ends count down m_lanesInUse: that must happen while it
    // exists.
    qDeleteAll(std::exchange(m_networks, {}));
}

quint64 ChatClient::send(const ChatRequest &request)
{
    auto call = std::make_unique<Call>();
    call->id = m_nextId++;
    call->request = request;
    call->startedUtc = QDateTime::currentDateTimeUtc();
    call->clock.start();
    call->timeout = new QTimer(this);
    call->timeout->setSingleShot(true);
    call->backoff = new QTimer(this);
    call->backoff->setSingleShot(true);
    const quint64 id = call->id;
    m_calls.emplace(id, std::move(call));

    const QStringList problems = m_endpoint.problems();
    if (!problems.isEmpty()) {
        failLater(id, failure(ChatReply::Error::Config,
                              QStringLiteral("endpoint '%1' is not usable: %2")
                                  .arg(m_endpoint.name, problems.join(QStringLiteral("; ")))));
        return id;
    }
    if (m_endpoint.keySource != Endpoint::KeySource::None && m_apiKey.isEmpty()) {
        failLater(id,
                  failure(ChatReply::Error::Config,
                          QStringLiteral("endpoint '%1' needs an API key and none was found: store it in the "
                                         "keychain (Tools > Models…) or set the environment variable %2")
                              .arg(m_endpoint.name, m_endpoint.keyEnvVar.isEmpty()
                                                        ? QStringLiteral("named in its settings")
                                                        : m_endpoint.keyEnvVar)));
        return id;
    }
    // Endpoint::problems() refuses this for an endpoint whose key source says it has a key; a key set
    // directly on the client is held to the same rule, so nothing but loopback ever gets a key in clear text.
    if (!m_apiKey.isEmpty() && m_endpoint.plainHttpOffMachine() && !m_endpoint.allowPlainHttpKey) {
        failLater(id,
                  failure(ChatReply::Error::Config,
                          QStringLiteral("endpoint '%1' is not usable: its API key would travel unencrypted "
                                         "over plain http:// to %2, which is not this machine: use an "
                                         "https:// base URL, or, only if the network to it is trusted, set "
                                         "\"allow_plain_http_key\": true on the endpoint in llm.json")
                              .arg(m_endpoint.name, QUrl(m_endpoint.baseUrl.trimmed()).host())));
        return id;
    }
    m_queue.push_back(id);
    pump();
    return id;
}

void ChatClient::failLater(quint64 id, const ChatReply &reply)
{
    // Always through the event loop, never inside send(): a caller registers the id send() returns before
    // any finished() for it can arrive, and needs no guard against a reply that overtakes its own call. A
    // cancel() in between finishes the call first; the queued failure then finds nothing and says nothing.
    QMetaObject::invokeMethod(
        this, [this, id, reply] { complete(id, reply); }, Qt::QueuedConnection);
}

void ChatClient::pump()
{
    while (!m_holdQueue && m_running < std::max(1, m_endpoint.concurrency) && !m_queue.empty()) {
        const quint64 id = m_queue.front();
        m_queue.pop_front();
        const auto it = m_calls.find(id);
        if (it == m_calls.end())
            continue;
        ++m_running;
        it->second->holdsSlot = true;
        startAttempt(*it->second);
    }
}

QByteArray ChatClient::requestBody(const ChatRequest &request) const
{
    QJsonArray messages;
    for (const ChatMessage &m : request.messages)
        messages.append(
            QJsonObject{{QStringLiteral("role"), m.role}, {QStringLiteral("content"), m.content}});
    QJsonObject body{{QStringLiteral("model"), m_endpoint.model}, {QStringLiteral("messages"), messages}};
    if (m_endpoint.temperature)
        body.insert(QStringLiteral("temperature"), *m_endpoint.temperature);
    if (m_endpoint.topP)
        body.insert(QStringLiteral("top_p"), *m_endpoint.topP);
    if (m_endpoint.maxTokens)
        body.insert(QStringLiteral("max_tokens"), *m_endpoint.maxTokens);
    if (!m_endpoint.reasoningEffort.isEmpty())
        body.insert(QStringLiteral("reasoning_effort"), m_endpoint.reasoningEffort);
    if (request.seed && m_endpoint.sendSeed)
        body.insert(QStringLiteral("seed"), *request.seed);
    if (request.stream) {
        body.insert(QStringLiteral("stream"), true);
        // Without this, OpenAI-style servers send no usage in a stream and the cost would be unknown.
        body.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

void ChatClient::startAttempt(Call &call)
{
    ++call.attempt;
    call.timedOut = false;
    call.tooLarge = false;
    call.body.clear();
    call.received = 0;
    if (std::exchange(call.delivered, false))
        Q_EMIT deltaReset(call.id);
    call.sse = SseDecoder();
    call.streaming = false;
    call.content.clear();
    call.reasoning.clear();
    call.contentChars = 0;
    call.reasoningChars = 0;
    call.finishReason.clear();
    call.usage.reset();
    call.streamError.clear();

    QString base = m_endpoint.baseUrl.trimmed();
    while (base.endsWith(u'/'))
        base.chop(1);
    QNetworkRequest request(QUrl(base + QStringLiteral("/chat/completions")));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", call.request.stream ? "text/event-stream" : "application/json");
    for (const auto &[name, value] : m_endpoint.extraHeaders)
        request.setRawHeader(name.toUtf8(), value.toUtf8());
    if (!m_apiKey.isEmpty()) {
        if (m_endpoint.authStyle == Endpoint::AuthStyle::Bearer)
            request.setRawHeader("Authorization", "Bearer " + m_apiKey.toUtf8());
        else
            request.setRawHeader(m_endpoint.authHeader.toUtf8(), m_apiKey.toUtf8());
    }
    qCDebug(lcLlm).noquote() << QStringLiteral("call %1 (%2) to %3, model %4, attempt %5")
                                    .arg(call.id)
                                    .arg(AgentRoles::name(call.request.role), m_endpoint.name,
                                         m_endpoint.model)
                                    .arg(call.attempt);
    const quint64 id = call.id;
    qsizetype lane = 0;
    QNetworkAccessManager *manager = network(lane);
    call.reply = manager->post(request, requestBody(call.request));
    // The reply's end frees its lane, whichever way it ends (finished, aborted, cancelled). The manager is
    // the context because cancel() disconnects the reply from this.
    connect(call.reply, &QObject::destroyed, manager, [this, lane] { --m_lanesInUse[lane]; });
    connect(call.reply, &QNetworkReply::readyRead, this, [this, id] { onReadyRead(id); });
    connect(call.reply, &QNetworkReply::finished, this, [this, id] { onReplyFinished(id); });
    call.timeout->disconnect();
    connect(call.timeout, &QTimer::timeout, this, [this, id] {
        const auto it = m_calls.find(id);
        if (it == m_calls.end() || !it->second->reply)
            return;
        it->second->timedOut = true;
        it->second->reply->abort();
    });
    call.timeout->start(std::max(1, m_endpoint.timeoutMs));
}

void ChatClient::onReadyRead(quint64 id)
{
    const auto it = m_calls.find(id);
    if (it == m_calls.end() || !it->second->reply)
        return;
    Call &call = *it->second;
    const QByteArray chunk = call.reply->readAll();
    call.received += chunk.size(); // a stream never fills `body`, so the cap counts what arrived
    if (call.received > m_maxReplyBytes) {
        call.tooLarge = true;
        call.reply->abort();
        return;
    }
    const int status = call.reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const bool eventStream = call.reply->header(QNetworkRequest::ContentTypeHeader)
                                 .toString()
                                 .startsWith(QStringLiteral("text/event-stream"));
    if (call.request.stream && status / 100 == 2 && eventStream) {
        call.streaming = true;
        call.timeout->start(std::max(1, m_endpoint.timeoutMs)); // for a stream the timeout is for silence
        for (const QByteArray &payload : call.sse.feed(chunk))
            handleStreamEvent(call, payload);
    } else {
        call.body += chunk;
    }
}

void ChatClient::handleStreamEvent(Call &call, const QByteArray &payload)
{
    if (payload.trimmed() == "[DONE]")
        return;
    QJsonParseError parseError;
    const QJsonObject chunk = QJsonDocument::fromJson(payload, &parseError).object();
    if (parseError.error != QJsonParseError::NoError) {
        call.streamError = QStringLiteral("a streamed chunk is not JSON (%1)").arg(parseError.errorString());
        return;
    }
    if (chunk.contains(QStringLiteral("error"))) {
        call.streamError =
            QStringLiteral("the server reported an error mid-stream: %1").arg(serverMessage(payload));
        return;
    }
    if (const auto usage = usageFrom(chunk.value(QStringLiteral("usage"))))
        call.usage = usage;
    const QJsonObject choice = chunk.value(QStringLiteral("choices")).toArray().at(0).toObject();
    const QJsonObject piece = choice.value(QStringLiteral("delta")).toObject();
    const QString text = piece.value(QStringLiteral("content")).toString();
    const QString reasoning = reasoningOf(piece);
    call.reasoningChars += reasoning.size();
    if (call.reasoning.size() < ReplyCaps::reasoningChars)
        call.reasoning += reasoning;
    if (!choice.value(QStringLiteral("finish_reason")).toString().isEmpty())
        call.finishReason = choice.value(QStringLiteral("finish_reason")).toString();
    // Past the role's cap the stream is only counted: neither kept nor shown live (capReply cuts at the cap).
    const qsizetype room = ReplyCaps::contentChars(call.request.role) - call.content.size();
    call.contentChars += text.size();
    if (!text.isEmpty() && room > 0) {
        const QString kept = text.left(room);
        call.content += kept;
        call.delivered = true;
        Q_EMIT delta(call.id, kept);
    }
}

void ChatClient::capReply(const Call &call, ChatReply &reply) const
{
    const QString role = AgentRoles::name(call.request.role);
    const qsizetype contentChars = std::max(call.contentChars, reply.content.size());
    const qsizetype reasoningChars = std::max(call.reasoningChars, reply.reasoning.size());
    const qsizetype cap = ReplyCaps::contentChars(call.request.role);
    if (ReplyCaps::cut(reply.content, cap, contentChars, role + QStringLiteral(" reply"))) {
        reply.contentCutFrom = contentChars;
        qCWarning(lcLlm).noquote()
            << QStringLiteral("call %1 (%2) to %3: the reply has %4 characters, over the %5 cap of %6; the "
                              "first %6 are kept, with a note saying so, and the rest is dropped")
                   .arg(call.id)
                   .arg(role, m_endpoint.name)
                   .arg(contentChars)
                   .arg(role)
                   .arg(cap);
    }
    if (ReplyCaps::cut(reply.reasoning, ReplyCaps::reasoningChars, reasoningChars,
                       role + QStringLiteral(" reasoning"))) {
        reply.reasoningCutFrom = reasoningChars;
        qCWarning(lcLlm).noquote()
            << QStringLiteral("call %1 (%2) to %3: the reasoning has %4 characters, over the cap of %5; the "
                              "first %5 are kept")
                   .arg(call.id)
                   .arg(role, m_endpoint.name)
                   .arg(reasoningChars)
                   .arg(ReplyCaps::reasoningChars);
    }
}

void ChatClient::onReplyFinished(quint64 id)
{
    const auto it = m_calls.find(id);
    if (it == m_calls.end() || !it->second->reply)
        return;
    Call &call = *it->second;
    QNetworkReply *reply = std::exchange(call.reply, nullptr);
    reply->deleteLater();
    call.timeout->stop();
    if (!call.tooLarge && !call.streaming && reply->isOpen())
        call.body += reply->readAll();

    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (call.tooLarge) {
        const QString cap = m_maxReplyBytes >= (1 << 20) ? QStringLiteral("%1 MB").arg(m_maxReplyBytes >> 20)
                                                         : QStringLiteral("%1 KB").arg(m_maxReplyBytes >> 10);
        complete(id, failure(ChatReply::Error::TooLarge,
                             QStringLiteral("the reply exceeded %1 and was abandoned").arg(cap)));
        return;
    }
    if (call.timedOut) {
        retryOrFail(call, ChatReply::Error::Timeout,
                    QStringLiteral("no complete reply within %1 s").arg(m_endpoint.timeoutMs / 1000.0), {});
        return;
    }
    // A connection that drops after the headers arrived still carries an HTTP status; without this check a
    // cut-off stream would be taken for a complete (and wrong) reply.
    if (status == 0 || (reply->error() != QNetworkReply::NoError && status / 100 == 2)) {
        const QString text = redacted(reply->errorString());
        if (transientNetworkError(reply->error()))
            retryOrFail(call, ChatReply::Error::Network, text, {});
        else
            complete(id, failure(ChatReply::Error::Network, text));
        return;
    }
    if (RetryPolicy::retryableHttpStatus(status)) {
        retryOrFail(call, ChatReply::Error::Http,
                    QStringLiteral("HTTP %1: %2").arg(status).arg(redacted(serverMessage(call.body))),
                    reply->rawHeader("Retry-After"));
        return;
    }
    if (status / 100 == 3) {
        ChatReply r = failure(ChatReply::Error::Http, redirectText(*reply, status));
        r.httpStatus = status;
        complete(id, r);
        return;
    }
    if (status / 100 != 2) {
        ChatReply r =
            failure(ChatReply::Error::Http,
                    QStringLiteral("HTTP %1: %2").arg(status).arg(redacted(serverMessage(call.body))));
        if (status == 401 || status == 403)
            r.errorText += QStringLiteral(" (check the endpoint's API key)");
        else if (status == 404)
            r.errorText += QStringLiteral(" (check the base URL, usually ending in /v1, and the model name)");
        r.httpStatus = status;
        complete(id, r);
        return;
    }

    ChatReply result;
    if (call.streaming) {
        for (const QByteArray &payload : call.sse.finish())
            handleStreamEvent(call, payload);
        if (!call.streamError.isEmpty()) {
            complete(id, failure(ChatReply::Error::BadReply, redacted(call.streamError)));
            return;
        }
        result.content = call.content;
        result.reasoning = call.reasoning;
        result.finishReason = call.finishReason;
        result.usage = call.usage;
    } else {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(call.body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
            // A garbled or cut-off body from a proxy or an overloaded server: asked again, like a 5xx.
            retryOrFail(call, ChatReply::Error::BadReply,
                        QStringLiteral("the reply is not a JSON object (%1 at byte %2 of %3)")
                            .arg(parseError.errorString())
                            .arg(parseError.offset)
                            .arg(call.body.size()),
                        {});
            return;
        }
        const QJsonObject o = doc.object();
        if (o.contains(QStringLiteral("error"))) { // some gateways report errors with status 200
            complete(id, failure(ChatReply::Error::Http, QStringLiteral("the server reported an error: %1")
                                                             .arg(redacted(serverMessage(call.body)))));
            return;
        }
        const QJsonValue choice = o.value(QStringLiteral("choices")).toArray().at(0);
        const QJsonObject message = choice.toObject().value(QStringLiteral("message")).toObject();
        if (!choice.isObject() || !choice.toObject().contains(QStringLiteral("message"))) {
            complete(id, failure(ChatReply::Error::BadReply,
                                 QStringLiteral(
                                     "the reply has no choices[0].message; is this an OpenAI-compatible "
                                     "chat completions endpoint?")));
            return;
        }
        result.content = message.value(QStringLiteral("content")).toString();
        result.reasoning = reasoningOf(message);
        result.finishReason = choice.toObject().value(QStringLiteral("finish_reason")).toString();
        result.usage = usageFrom(o.value(QStringLiteral("usage")));
    }
    capReply(call, result);
    result.httpStatus = status;
    complete(id, result);
}

void ChatClient::retryOrFail(Call &call, ChatReply::Error kind, const QString &reason,
                             const QByteArray &retryAfter)
{
    if (call.attempt >= std::max(1, m_policy.maxAttempts)) {
        complete(call.id, failure(kind, QStringLiteral("gave up after %1 attempt%2: %3")
                                            .arg(call.attempt)
                                            .arg(call.attempt == 1 ? "" : "s")
                                            .arg(reason)));
        return;
    }
    const auto delay = m_policy.delayMs(call.attempt + 1, retryAfter, QDateTime::currentDateTimeUtc(), m_rng);
    if (!delay) {
        complete(call.id,
                 failure(kind, QStringLiteral("%1; the server asked to retry after '%2', longer than the "
                                              "%3 s this client waits")
                                   .arg(reason, QString::fromLatin1(retryAfter))
                                   .arg(m_policy.maxRetryAfterMs / 1000)));
        return;
    }
    qCWarning(lcLlm).noquote() << QStringLiteral("call %1 to %2: %3; retrying in %4 ms (attempt %5 of %6)")
                                      .arg(call.id)
                                      .arg(m_endpoint.name, reason)
                                      .arg(*delay)
                                      .arg(call.attempt + 1)
                                      .arg(m_policy.maxAttempts);
    Q_EMIT retrying(call.id, call.attempt + 1, *delay, reason);
    const quint64 id = call.id;
    call.backoff->disconnect();
    connect(call.backoff, &QTimer::timeout, this, [this, id] {
        const auto it = m_calls.find(id);
        if (it != m_calls.end())
            startAttempt(*it->second);
    });
    call.backoff->start(int(*delay));
}

void ChatClient::cancel(quint64 id)
{
    const auto it = m_calls.find(id);
    if (it == m_calls.end())
        return;
    std::erase(m_queue, id);
    if (QNetworkReply *reply = std::exchange(it->second->reply, nullptr)) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
    complete(id, failure(ChatReply::Error::Cancelled, QStringLiteral("cancelled")));
}

void ChatClient::cancelAll()
{
    m_holdQueue = true;
    // Queued calls first, so no slot freed by a running one starts a call about to be cancelled.
    const std::deque<quint64> queuedIds = m_queue;
    for (quint64 id : queuedIds)
        cancel(id);
    std::vector<quint64> ids;
    for (const auto &[id, call] : m_calls)
        ids.push_back(id);
    for (quint64 id : ids)
        cancel(id);
    m_holdQueue = false;
}

QString ChatClient::redirectText(const QNetworkReply &reply, int status) const
{
    // Following a redirect would carry the key to wherever the server points (and http:// there would
    // undo the plain-http rule), so the client never follows one: it says where it pointed and what to do.
    const QByteArray location = reply.rawHeader("Location").trimmed();
    if (location.isEmpty())
        return QStringLiteral(
                   "HTTP %1: the server redirects, but says nowhere (no Location header); redirects "
                   "are not followed: check the endpoint's base URL")
            .arg(status);
    const QUrl target = reply.url().resolved(QUrl::fromEncoded(location));
    QString base = target.toString(QUrl::RemoveQuery | QUrl::RemoveFragment);
    const QString suffix = QStringLiteral("/chat/completions");
    const bool toCompletions = base.endsWith(suffix);
    if (toCompletions)
        base.chop(suffix.size());
    return QStringLiteral("HTTP %1: the server redirects to %2; redirects are not followed (they would carry "
                          "the API key elsewhere): %3")
        .arg(status)
        .arg(redacted(target.toString()),
             toCompletions ? QStringLiteral("set the endpoint's base URL to %1").arg(redacted(base))
                           : QStringLiteral("put the final URL, up to and including /v1, in the endpoint's "
                                            "base URL"));
}

ChatReply ChatClient::failure(ChatReply::Error kind, const QString &text) const
{
    ChatReply r;
    r.error = kind;
    r.errorText = text;
    return r;
}

QString ChatClient::redacted(QString text) const
{
    // Some servers echo the key they rejected; it must not reach logs or the session store through us.
    if (m_apiKey.size() >= 4)
        text.replace(m_apiKey, QStringLiteral("[redacted]"));
    return text;
}

void ChatClient::complete(quint64 id, ChatReply reply)
{
    const auto it = m_calls.find(id);
    if (it == m_calls.end())
        return;
    std::unique_ptr<Call> call = std::move(it->second);
    m_calls.erase(it);
    call->timeout->stop();
    call->timeout->deleteLater();
    call->backoff->stop();
    call->backoff->deleteLater();
    if (call->holdsSlot)
        --m_running;

    reply.latencyMs = call->clock.elapsed();
    reply.attempts = call->attempt;
    reply.model = m_endpoint.model;
    reply.endpoint = m_endpoint.name;
    // A call that never reached the server costs nothing; one that did but told us nothing is unknown.
    if (m_ledger && call->attempt > 0)
        reply.costUsd = m_ledger->add(call->request.role, m_endpoint.model, reply.usage);

    if (reply.ok())
        qCDebug(lcLlm).noquote() << QStringLiteral("call %1 done in %2 ms, %3 attempt(s), tokens %4")
                                        .arg(id)
                                        .arg(reply.latencyMs)
                                        .arg(reply.attempts)
                                        .arg(reply.usage ? QStringLiteral("%1 in / %2 out")
                                                               .arg(reply.usage->inputTokens)
                                                               .arg(reply.usage->outputTokens)
                                                         : QStringLiteral("unknown"));
    else if (reply.error != ChatReply::Error::Cancelled)
        qCWarning(lcLlm).noquote()
            << QStringLiteral("call %1 to %2 failed: %3").arg(id).arg(m_endpoint.name, reply.errorText);

    if (m_recorder) {
        LlmCallRecord record;
        record.callId = id;
        record.role = AgentRoles::name(call->request.role);
        record.endpoint = m_endpoint.name;
        record.model = m_endpoint.model;
        record.tag = call->request.tag;
        record.messages = call->request.messages;
        record.reply = reply.content;
        record.reasoning = reply.reasoning;
        record.finishReason = reply.finishReason;
        record.usage = reply.usage;
        record.costUsd = reply.costUsd;
        record.latencyMs = reply.latencyMs;
        record.attempts = reply.attempts;
        record.error = reply.errorText;
        record.startedUtc = call->startedUtc;
        m_recorder->record(record);
    }
    // A listener may delete this client in its finished handler.
    QPointer<ChatClient> self(this);
    Q_EMIT finished(id, reply);
    if (self)
        pump();
}
