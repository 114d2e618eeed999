//===- TrainTest.cpp - PPO math, and a short training run that learns -------===//

#include "mqss/Env/Episode.h"
#include "mqss/Store/Store.h"
#include "mqss/Suite/Registry.h"
#include "mqss/Suite/SuiteRun.h"
#include "mqss/Train/Ppo.h"
#include "mqss/Train/Trainer.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace mqss;

TEST(Ppo, GaeMatchesHandComputation) {
  // values [0.5, 0.2], reward 1 at the end, gamma 1, lambda 0.5:
  // delta1 = 1 - 0.2 = 0.8, A1 = 0.8; delta0 = 0.2 - 0.5 = -0.3,
  // A0 = -0.3 + 0.5 * 0.8 = 0.1; returns = A + V.
  std::vector<float> advantages, returns;
  computeGae({0.5f, 0.2f}, 1.0f, 1.0f, 0.5f, advantages, returns);
  ASSERT_EQ(advantages.size(), 2u);
  EXPECT_NEAR(advantages[1], 0.8f, 1e-6);
  EXPECT_NEAR(advantages[0], 0.1f, 1e-6);
  EXPECT_NEAR(returns[1], 1.0f, 1e-6);
  EXPECT_NEAR(returns[0], 0.6f, 1e-6);
  // gamma discounts the bootstrap: gamma 0.9, lambda 1 gives the discounted
  // Monte-Carlo advantage.
  computeGae({0.0f, 0.0f, 0.0f}, 1.0f, 0.9f, 1.0f, advantages, returns);
  EXPECT_NEAR(advantages[0], 0.81f, 1e-6);
}

TEST(Ppo, ClippedLossMatchesHandComputation) {
  configureTorchThreads();
  // ratio = 0.6 / 0.4 = 1.5: with A = +1 the clip caps it at 1.2; with
  // A = -1 the unclipped -1.5 is the minimum. Loss = -mean(1.2, -1.5) = 0.15.
  torch::Tensor newLog = torch::log(torch::tensor({0.6f, 0.6f}));
  torch::Tensor oldLog = torch::log(torch::tensor({0.4f, 0.4f}));
  torch::Tensor adv = torch::tensor({1.0f, -1.0f});
  EXPECT_NEAR(clippedPolicyLoss(newLog, oldLog, adv, 0.2f).item<float>(), 0.15f, 1e-6);
  // Inside the clip range the surrogate is the plain ratio * A.
  torch::Tensor near = torch::log(torch::tensor({0.41f}));
  EXPECT_NEAR(clippedPolicyLoss(near, torch::log(torch::tensor({0.4f})),
                                torch::tensor({2.0f}), 0.2f)
                  .item<float>(),
              -2.0f * 0.41f / 0.4f, 1e-5);
}

TEST(Ppo, GradientOfTheLossMatchesFiniteDifferences) {
  configureTorchThreads();
  torch::Tensor old = torch::tensor({-1.0f, -0.7f, -2.0f}, torch::kFloat64);
  torch::Tensor adv = torch::tensor({0.5f, -1.3f, 2.0f}, torch::kFloat64);
  torch::Tensor x = torch::tensor({-0.95f, -0.72f, -2.05f}, torch::kFloat64).requires_grad_();
  torch::Tensor loss = clippedPolicyLoss(x, old, adv, 0.2f);
  loss.backward();
  torch::Tensor analytic = x.grad().clone();
  for (int i = 0; i < 3; ++i) {
    double h = 1e-6;
    torch::Tensor plus = x.detach().clone(), minus = x.detach().clone();
    plus[i] += h;
    minus[i] -= h;
    double numeric = (clippedPolicyLoss(plus, old, adv, 0.2f).item<double>() -
                      clippedPolicyLoss(minus, old, adv, 0.2f).item<double>()) /
                     (2 * h);
    EXPECT_NEAR(analytic[i].item<double>(), numeric, 1e-6) << "component " << i;
  }
}

TEST(Ppo, UpdateMovesProbabilityTowardsRewardedActions) {
  configureTorchThreads();
  torch::manual_seed(5);
  ActorCritic network(kNumFeatures, actionCatalog().size());
  torch::optim::Adam optimizer(network->parameters(), torch::optim::AdamOptions(1e-2));
  auto policy = createNetworkPolicy(network, currentMetadata());
  FeatureVector state{};
  state[3] = 1.0f;
  std::vector<bool> mask(actionCatalog().size(), false);
  unsigned good = actionIndex(*lookupAction("loops.tile-32"));
  unsigned bad = actionIndex(*lookupAction("loops.unroll-8"));
  mask[good] = mask[bad] = true;
  double before = policy->decide(state, mask).probabilities[good];

  for (int round = 0; round < 10; ++round) {
    std::vector<Episode> episodes;
    for (unsigned action : {good, bad, good, bad}) {
      Decision d = policy->decide(state, mask);
      Episode e;
      EpisodeStep step{state, mask, action, d.probabilities[action], d.value};
      e.steps.push_back(step);
      e.reward = action == good ? 1.0 : -1.0;
      episodes.push_back(e);
    }
    ppoUpdate(network, optimizer, episodes, PpoConfig(), 0.0f, round);
    policy = createNetworkPolicy(network, currentMetadata()); // new weights
  }
  double after = policy->decide(state, mask).probabilities[good];
  EXPECT_NEAR(before, 0.5, 0.05);
  EXPECT_GT(after, 0.8);
}

TEST(Reward, DeadbandFailureAndScale) {
  EXPECT_EQ(rewardFor(RunStatus::Ok, 1.004, 0.005), 0.0);
  EXPECT_NEAR(rewardFor(RunStatus::Ok, 2.0, 0.005), 0.5, 1e-12); // half the time
  EXPECT_NEAR(rewardFor(RunStatus::Ok, 0.8, 0.005), -0.25, 1e-12);
  EXPECT_EQ(rewardFor(RunStatus::WrongOutput, 3.0, 0.005), -1.0);
  EXPECT_EQ(rewardFor(RunStatus::Ok, 0.1, 0.005), -1.0);
}

TEST(Objective, ParsesTheThreeKindsAndRoundTrips) {
  auto runtime = parseObjective("runtime");
  ASSERT_TRUE(static_cast<bool>(runtime));
  EXPECT_TRUE(runtime->isRuntime());
  EXPECT_FALSE(runtime->needsCosts());
  EXPECT_EQ(runtime->spec(), "runtime");
  auto size = parseObjective(" size ");
  ASSERT_TRUE(static_cast<bool>(size));
  EXPECT_EQ(size->kind, ObjectiveKind::Size);
  EXPECT_TRUE(size->needsCosts());
  EXPECT_FALSE(size->needsScales());
  auto weighted = parseObjective("weighted:runtime=0.7,compile=0.2,size=0.1");
  ASSERT_TRUE(static_cast<bool>(weighted));
  EXPECT_EQ(weighted->kind, ObjectiveKind::Weighted);
  EXPECT_TRUE(weighted->needsScales());
  EXPECT_DOUBLE_EQ(weighted->runtimeWeight, 0.7);
  EXPECT_DOUBLE_EQ(weighted->compileWeight, 0.2);
  EXPECT_DOUBLE_EQ(weighted->sizeWeight, 0.1);
  EXPECT_EQ(weighted->spec(), "weighted:runtime=0.7,compile=0.2,size=0.1");
  // Terms in any order, missing terms weigh 0 and are left out of the spec.
  auto partial = parseObjective("weighted: size=1 , runtime=3");
  ASSERT_TRUE(static_cast<bool>(partial));
  EXPECT_EQ(partial->compileWeight, 0);
  EXPECT_EQ(partial->spec(), "weighted:runtime=3,size=1");
  auto again = parseObjective(weighted->spec());
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(again->spec(), weighted->spec());
}

TEST(Objective, BadSpecsAreClearErrors) {
  auto message = [](llvm::StringRef spec) {
    auto parsed = parseObjective(spec);
    EXPECT_FALSE(static_cast<bool>(parsed)) << spec.str();
    return parsed ? std::string() : llvm::toString(parsed.takeError());
  };
  EXPECT_NE(message("latency").find("unknown objective 'latency'"), std::string::npos);
  EXPECT_NE(message("weighted").find("names no weights"), std::string::npos);
  EXPECT_NE(message("weighted:").find("names no weights"), std::string::npos);
  EXPECT_NE(message("weighted:speed=1").find("unknown term 'speed'"), std::string::npos);
  EXPECT_NE(message("weighted:runtime").find("has no weight"), std::string::npos);
  EXPECT_NE(message("weighted:runtime=fast").find("'fast', not a number"), std::string::npos);
  EXPECT_NE(message("weighted:runtime=").find("not a number"), std::string::npos);
  EXPECT_NE(message("weighted:runtime=nan").find("not a number"), std::string::npos);
  EXPECT_NE(message("weighted:runtime=-0.5,size=1").find("'runtime' is negative"),
            std::string::npos);
  EXPECT_NE(message("weighted:runtime=0,size=0").find("all weights are zero"), std::string::npos);
  EXPECT_NE(message("weighted:size=1,size=2").find("'size' is given twice"), std::string::npos);
}

TEST(Objective, RuntimeIsExactlyTheOldReward) {
  Objective runtime;
  for (double speedup : {0.1, 0.8, 0.996, 1.0, 1.004, 1.3, 2.0, 40.0}) {
    Gains gains;
    gains.runtime = speedup;
    gains.size = 3; // ignored
    EXPECT_EQ(runtime.reward(RunStatus::Ok, gains, 0.005), rewardFor(RunStatus::Ok, speedup, 0.005));
    EXPECT_EQ(runtime.gain(gains), speedup);
  }
  Gains gains;
  gains.runtime = 2;
  EXPECT_EQ(runtime.reward(RunStatus::Timeout, gains, 0.005), -1.0);
  // weighted:runtime=1 is the same objective, whatever the scales.
  Objective onlyRuntime = *parseObjective("weighted:runtime=1");
  onlyRuntime.scales = {3.0, 0.4, 1.7, 10};
  EXPECT_NEAR(onlyRuntime.reward(RunStatus::Ok, gains, 0.005), 0.5, 1e-12);
  gains.runtime = 1.004;
  EXPECT_EQ(onlyRuntime.reward(RunStatus::Ok, gains, 0.005), 0.0);
}

TEST(Objective, SizeRewardIsRelativeCodeBytes) {
  Objective size = *parseObjective("size");
  Gains gains;
  gains.runtime = 0.5; // ignored
  gains.size = 2000.0 / 1000.0; // default 2000 bytes, candidate 1000
  EXPECT_NEAR(size.reward(RunStatus::Ok, gains, 0.005), 0.5, 1e-12);
  gains.size = 2000.0 / 2500.0;
  EXPECT_NEAR(size.reward(RunStatus::Ok, gains, 0.005), -0.25, 1e-12);
  // Code size is exact: no noise dead-band.
  gains.size = 1004.0 / 1000.0;
  EXPECT_NEAR(size.reward(RunStatus::Ok, gains, 0.005), 1 - 1000.0 / 1004.0, 1e-12);
  gains.size = 0.25;
  EXPECT_EQ(size.reward(RunStatus::Ok, gains, 0.005), -1.0); // clamped
  gains.size = 0; // unknown
  EXPECT_EQ(size.reward(RunStatus::Ok, gains, 0.005), -1.0);
  gains.size = 2;
  EXPECT_EQ(size.reward(RunStatus::WrongOutput, gains, 0.005), -1.0);
}

TEST(Objective, WeightedRewardMatchesHandComputation) {
  Objective weighted = *parseObjective("weighted:runtime=0.7,compile=0.2,size=0.1");
  weighted.scales = {2.0, 0.5, 1.0, 8};
  Gains gains;
  gains.runtime = 2.0;  // twice as fast
  gains.compile = 0.5;  // compiles twice as long
  gains.size = 1.25;    // 20% fewer bytes
  // L = 2 * (0.7 ln2 / 2 + 0.2 ln0.5 / 0.5 + 0.1 ln1.25 / 1) = -0.0246860078
  EXPECT_NEAR(weighted.logGain(gains, 0.005), -0.02468600779315258, 1e-12);
  EXPECT_NEAR(weighted.reward(RunStatus::Ok, gains, 0.005), -0.024993230105207598, 1e-12);
  EXPECT_NEAR(weighted.gain(gains), std::exp(-0.02468600779315258), 1e-12);
  // Only the ratios of the weights matter.
  Objective scaled = *parseObjective("weighted:runtime=7,compile=2,size=1");
  scaled.scales = weighted.scales;
  EXPECT_NEAR(scaled.reward(RunStatus::Ok, gains, 0.005),
              weighted.reward(RunStatus::Ok, gains, 0.005), 1e-12);
  // Timed terms inside the dead-band count as 0: L = 2 * 0.1 ln1.25.
  gains.runtime = 1.004;
  gains.compile = 0.998;
  EXPECT_NEAR(weighted.logGain(gains, 0.005), 2 * 0.1 * std::log(1.25), 1e-12);
  // A term with weight needs its measurement; one without weight does not.
  gains.compile = 0;
  EXPECT_EQ(weighted.reward(RunStatus::Ok, gains, 0.005), -1.0);
  Objective noCompile = *parseObjective("weighted:runtime=1,size=1");
  EXPECT_GT(noCompile.reward(RunStatus::Ok, gains, 0.005), 0);
}

TEST(Objective, ScalesAreLogSpreadsOfTheDefaultBaseline) {
  EXPECT_DOUBLE_EQ(percentile({5, 1, 3, 2, 4}, 90), 4.6); // numpy's linear
  EXPECT_DOUBLE_EQ(percentile({5, 1, 3, 2, 4}, 10), 1.4);
  EXPECT_DOUBLE_EQ(percentile({7}, 90), 7);
  std::vector<BaselineSample> samples;
  for (int i = 0; i < 5; ++i) // runtimes e^0 .. e^4 ms; sizes 1 KB, 4 KB, ...
    samples.push_back({std::exp(double(i)), 25.0, 1024.0 * std::pow(4.0, i)});
  samples.push_back({0, 25.0, 1024.0}); // a failed baseline is left out
  ObjectiveScales scales = scalesFromBaselines(samples);
  EXPECT_EQ(scales.samples, 5u);
  EXPECT_NEAR(scales.runtime, 3.6 - 0.4, 1e-12);
  EXPECT_NEAR(scales.size, (3.6 - 0.4) * std::log(4.0), 1e-12);
  EXPECT_DOUBLE_EQ(scales.compile, kMinLogSpread); // all equal: floored
  ObjectiveScales one = scalesFromBaselines({{1.0, 2.0, 3.0}});
  EXPECT_EQ(one.samples, 1u);
  EXPECT_EQ(one.runtime, 1);
  EXPECT_EQ(one.compile, 1);
  EXPECT_EQ(one.size, 1);
}

TEST(Objective, GainsFromAPairedReport) {
  RunReport report;
  report.speedup = SpeedupSummary{1.5, 1.4, 1.6, 0.95};
  report.candidate.compileMs = 10;
  report.candidate.jitMs = 5;
  report.candidate.codeSizeBytes = 1000;
  report.baseline = VariantReport{};
  report.baseline->compileMs = 20;
  report.baseline->jitMs = 10;
  report.baseline->codeSizeBytes = 3000;
  Gains gains = gainsFromReport(report);
  EXPECT_EQ(gains.runtime, 1.5);
  EXPECT_EQ(gains.compile, 2.0);
  EXPECT_EQ(gains.size, 3.0);
  report.status = RunStatus::WrongOutput;
  EXPECT_EQ(gainsFromReport(report).size, 0);
}

namespace {
std::string temporaryDirectory(llvm::StringRef prefix) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, path));
  return std::string(path);
}
} // namespace

// A short real training run (measured rewards) on two train kernels: the
// trained policy's greedy episodes must earn clearly more than a random
// policy's on the same kernels, and rerunning the same command resumes.
TEST(Training, LearnsAboveRandomAndResumes) {
  std::string dir = temporaryDirectory("mqss-train");
  TrainOptions options;
  options.outDir = dir;
  options.registryPath = MQSS_BENCHMARKS_DIR "/registry.json";
  options.maxTrainKernels = 2;
  options.targets = {"host"};
  options.updates = 4;
  options.episodesPerUpdate = 6;
  options.maxSteps = 6;
  options.validateEvery = 2;
  options.checkpointEvery = 1;
  options.bcEpochs = 40;
  options.reps = 2;
  options.minTimeMs = 0;
  options.dbPath = dir + "/cache.db";
  options.command = "unit test training";
  auto result = train(options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->resumed);
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/model.pt"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/log.csv"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/learning-curve.svg"));

  auto registry = Registry::load(options.registryPath);
  ASSERT_TRUE(static_cast<bool>(registry));
  auto entries = registry->select({"train", "", "", "smallest"});
  ASSERT_TRUE(static_cast<bool>(entries));
  entries->resize(2);
  // Measured afresh (a cache of its own, more repetitions), not read back
  // from the training's cache of 2-repetition measurements.
  auto store = Store::open(dir + "/evaluation.db");
  ASSERT_TRUE(static_cast<bool>(store));
  auto trained = loadPolicy(dir + "/model.pt");
  ASSERT_TRUE(static_cast<bool>(trained)) << llvm::toString(trained.takeError());
  auto random = createRandomPolicy();
  double trainedReward = 0, randomReward = 0;
  for (const BenchmarkEntry &entry : *entries) {
    SuiteRunOptions run;
    run.reps = 5;
    run.minTimeMs = 5;
    RunRequest kernel = requestFor(entry, run);
    Evaluator evaluator(kernel, store->get());
    EpisodeOptions greedy;
    greedy.greedy = true;
    greedy.maxSteps = 6;
    trainedReward += runEpisode(kernel, **trained, &evaluator, greedy).reward;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      EpisodeOptions sampled;
      sampled.maxSteps = 6;
      sampled.seed = seed;
      randomReward += runEpisode(kernel, *random, &evaluator, sampled).reward / 4;
    }
  }
  EXPECT_GT(trainedReward / 2, randomReward / 2 + 0.2)
      << "trained " << trainedReward / 2 << " vs random " << randomReward / 2;

  // The same command again finds its checkpoint and has nothing left to do.
  auto again = train(options);
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_TRUE(again->resumed);
  EXPECT_EQ(again->updates, 4u);
  llvm::sys::fs::remove_directories(dir);
}
