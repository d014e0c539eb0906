#include "exportsession.h"

#include "store/sessionstore.h"

namespace {
QString kernelSource(const QString &comment, const QString &extra = {})
{
    return QStringLiteral("import numpy as np\n"
                          "import neuronxcc.nki as nki\n"
                          "import neuronxcc.nki.language as nl\n\n\n"
                          "@nki.jit\n"
                          "def kernel(x):\n"
                          "    variant = \"%1\"  # a statement, so each kernel's normalized hash differs\n"
                          "    P, N = x.shape\n"
                          "    out = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                          "    ip = nl.arange(P)[:, None]\n"
                          "    jf = nl.arange(N)[None, :]\n"
                          "    xt = nl.load(x[ip, jf])\n"
                          "    nl.store(out[ip, jf], value=nl.multiply(xt, nl.sigmoid(xt)))\n"
                          "%2"
                          "    return out\n")
        .arg(comment, extra);
}

Evaluation ok(double ms, double percent)
{
    Evaluation e;
    e.status = EvalStatus::Ok;
    e.correct = true;
    e.l2RelErr = 1e-7;
    e.latencyMeanMs = ms;
    e.latencyMinMs = ms - 0.05;
    e.latencyMaxMs = ms + 0.1;
    e.latencyP50Ms = ms;
    e.relSpread = 0.02;
    e.peakMs = 0.4;
    e.percentOfPeak = percent; // the runner reports 0-100
    e.bound = QStringLiteral("memory");
    e.host = QStringLiteral("local/0");
    e.backend = QStringLiteral("sim");
    e.sdk = QStringLiteral("nkisim");
    e.metrics = QJsonObject{{QStringLiteral("hbm_read_bytes"), 65536}};
    return e;
}

Evaluation failed(const QString &status, const QString &error)
{
    Evaluation e;
    e.status = *EvalStatuses::fromName(status);
    e.error = error;
    if (status == QStringLiteral("incorrect")) {
        e.correct = false;
        e.l2RelErr = 0.5;
    }
    e.host = QStringLiteral("local/1");
    return e;
}
} // namespace

bool ExportSession::create(SessionStore &store, QString &error)
{
    const auto check = [&](bool ok) {
        if (!ok && error.isEmpty())
            error = store.lastError();
        return ok;
    };
    SessionRecord s;
    s.taskName = QStringLiteral("silu");
    s.task = QJsonObject{{QStringLiteral("name"), QStringLiteral("silu")}};
    s.target = QStringLiteral("trn1");
    s.backend = QStringLiteral("sim");
    s.host = QStringLiteral("local");
    s.config = QJsonObject{{QStringLiteral("beam_width"), 2},
                           {QStringLiteral("plans_per_kernel"), 3},
                           {QStringLiteral("samples_per_plan"), 2},
                           {QStringLiteral("iterations"), 2},
                           {QStringLiteral("budget_usd"), 5.0}};
    if (!check(store.createSession(s)))
        return false;
    sessionId = s.id;

    Candidate base;
    base.sessionId = s.id;
    base.origin = Candidate::Origin::Baseline;
    base.source = kernelSource(QStringLiteral("baseline"));
    if (!check(store.addCandidate(base)) || !check(store.addEvaluation(base.id, ok(baselineMs, 10.0))))
        return false;
    baselineId = base.id;

    const auto plan = [&](int iteration, const QString &parent, int index, const QString &title) {
        PlanRecord p;
        p.sessionId = s.id;
        p.iteration = iteration;
        p.parentCandidateId = parent;
        p.planIndex = index;
        p.plan = Plan{title, {QStringLiteral("step one"), QStringLiteral("step two")}, title};
        check(store.addPlan(p));
        return p.id;
    };
    const auto child = [&](int iteration, const QString &parent, const QString &planId, int planIndex,
                           int sample, int fixRound, const QString &source) {
        Candidate c;
        c.sessionId = s.id;
        c.iteration = iteration;
        c.parentId = parent;
        c.planId = planId;
        c.planIndex = planIndex;
        c.sampleIndex = sample;
        c.fixRound = fixRound;
        c.origin = fixRound > 0 ? Candidate::Origin::Fixer : Candidate::Origin::Executor;
        c.source = source;
        check(store.addCandidate(c));
        return c.id;
    };

    const QString p0 = plan(1, baselineId, 0, planTitle0());
    const QString p1 = plan(1, baselineId, 1, planTitle1());
    c1a = child(1, baselineId, p0, 0, 0, 0, kernelSource(QStringLiteral("fused loads")));
    c1b = child(1, baselineId, p0, 0, 1, 0, kernelSource(QStringLiteral("fused loads, wrong mask")));
    c1c = child(1, baselineId, p1, 1, 0, 0, kernelSource(QStringLiteral("tiles, broken")));
    c1d = child(1, c1c, p1, 1, 0, 1, kernelSource(QStringLiteral("tiles, fixed")));
    c1e = child(1, baselineId, p1, 1, 1, 0, kernelSource(QStringLiteral("tiles, never run")));
    const QString p2 = plan(2, c1a, 0, planTitle2());
    c2x = child(2, c1a, p2, 0, 0, 0, kernelSource(QStringLiteral("double buffered, off by one")));
    bestSource = kernelSource(QStringLiteral("double buffered"),
                              QStringLiteral("    \"\"\"A docstring quoting Markdown:\n"
                                             "    ```python\n    kernel(x)\n    ```\n    \"\"\"\n"));
    c2a = child(2, c2x, p2, 0, 0, 1, bestSource);
    c2b = child(2, c1a, p2, 0, 1, 0, kernelSource(QStringLiteral("double buffered, slow")));
    if (!error.isEmpty())
        return false;

    if (!check(store.addEvaluation(c1a, ok(2.0, 20.0))) ||
        !check(store.addEvaluation(c1b, failed(QStringLiteral("incorrect"), c1bError()))) ||
        !check(store.addEvaluation(c1c, failed(QStringLiteral("compile_error"),
                                               QStringLiteral("=cmd|' /C calc'!A0 line 9\nmore")))) ||
        !check(store.addEvaluation(c1d, ok(2.5, 16.0))) ||
        !check(store.addEvaluation(c2x, failed(QStringLiteral("incorrect"), QStringLiteral("l2 0.3")))) ||
        !check(store.addEvaluation(c2a, ok(bestMs, 25.0))) ||
        !check(store.addEvaluation(c2b, failed(QStringLiteral("timeout"), QStringLiteral("ran past 60 s")))))
        return false;

    const auto call = [&](const QString &role, std::optional<double> cost, std::optional<TokenUsage> usage,
                          const QString &callError = {}) {
        LlmCallRecord r;
        r.role = role;
        r.model = QStringLiteral("test-model");
        r.messages = {ChatMessage{QStringLiteral("user"), transcriptMarker() + QStringLiteral(" prompt")}};
        r.reply = transcriptMarker() + QStringLiteral(" reply");
        r.costUsd = cost;
        r.usage = usage;
        r.error = callError;
        return check(store.recordLlmCall(s.id, r));
    };
    if (!call(QStringLiteral("planner"), 0.10, TokenUsage{1000, 200}) ||
        !call(QStringLiteral("planner"), 0.05, TokenUsage{500, 100}) ||
        !call(QStringLiteral("executor"), 0.20, TokenUsage{2000, 800}) ||
        !call(QStringLiteral("fixer"), 0.03, TokenUsage{300, 50}) ||
        !call(QStringLiteral("summarizer"), std::nullopt, std::nullopt) ||
        !call(QStringLiteral("executor"), std::nullopt, std::nullopt, QStringLiteral("HTTP 500")))
        return false;
    return check(store.markStepCompleted(s.id, 2, ResumeStep::Select)) &&
           check(store.setStatus(s.id, SessionRecord::Status::Finished));
}

QString ExportSession::createHopeless(SessionStore &store)
{
    SessionRecord s;
    s.taskName = QStringLiteral("silu");
    s.target = QStringLiteral("trn1");
    s.backend = QStringLiteral("sim");
    if (!store.createSession(s))
        return {};
    Candidate base;
    base.sessionId = s.id;
    base.origin = Candidate::Origin::Baseline;
    base.source = kernelSource(QStringLiteral("hopeless"));
    if (!store.addCandidate(base) ||
        !store.addEvaluation(base.id, failed(QStringLiteral("incorrect"), QStringLiteral("all wrong"))))
        return {};
    return s.id;
}
