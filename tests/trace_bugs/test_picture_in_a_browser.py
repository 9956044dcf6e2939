#!/usr/bin/env python3
"""A real browser opens a trace picture, steps through it and sees what the trace says.

Usage: test_picture_in_a_browser.py PICTURE_PROGRAM OUT_DIR [STAGE8_PICTURE_PROGRAM]
Headless Chromium, driven by Selenium through chromedriver, opens the page --picture drew for
lab 3 without its barrier (picture_of_a_lab.c), then checks what a reader sees: the step count
of the first block is the trace's, stepping to the end reaches it, the race's entry takes the
page to the race's step with the racing word drawn red, and the source panel marks the race's
line for its thread. With a third program (lab 8 whose blocks meet through __device__ variables
without a fence): the stale read's entry shows the blocks' meeting, every block in the order it
ran, the stale read's row red with its line, and the meeting of another block size after a
change of the block size. Needs python3-selenium, chromium and chromium-driver (./setup.sh installs
them); without them the test fails and says what to install.
"""
import json
import os
import shutil
import subprocess
import sys

INSTALL = "sudo apt-get install python3-selenium chromium chromium-driver (./setup.sh does)"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    fail("the Python selenium module is missing: " + INSTALL)


def find(names):
    for name in names:
        path = shutil.which(name) or (name if os.path.exists(name) else None)
        if path:
            return path
    return None


def main():
    program, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    page, trace = os.path.join(out, "lab3.html"), os.path.join(out, "lab3.json")
    run = subprocess.run([program, "--stage", "3", "--impl", "labs", "--threads", "64", "--picture", page,
                          "--trace", trace], capture_output=True, text=True, timeout=100)
    if run.returncode not in (0, 1):  # 1: drawn, and a run of the lab went wrong
        fail("the picture was not drawn: " + run.stderr)
    with open(trace) as f:
        doc = json.load(f)
    lab = doc["impls"][0]["runs"][0]["trace"]
    steps = len(lab["launches"][0]["blocks"][0]["steps"])
    races = [e for e in lab["errors"] if e["kind"] == "race"]
    if not races:
        fail("the trace of lab 3 without its barrier has no race to look for")

    chromium = find(["chromium", "chromium-browser", "/usr/bin/chromium"])
    driver_path = find(["chromedriver", "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
    if not chromium or not driver_path:
        fail("no %s: %s" % ("chromium" if not chromium else "chromedriver", INSTALL))
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        browser.get("file://" + os.path.abspath(page))
        WebDriverWait(browser, 30).until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        stepno = browser.find_element(By.ID, "stepno")
        shown = int(stepno.get_attribute("data-steps"))
        if shown != steps:
            fail("the page shows %d steps for the first block, the trace has %d" % (shown, steps))
        for _ in range(steps + 2):  # past the end: the page stays at the last step
            browser.find_element(By.ID, "next").click()
        if stepno.text != "step %d of %d" % (steps, steps):
            fail("stepping to the end shows %r" % stepno.text)
        entries = [e for e in browser.find_elements(By.CSS_SELECTOR, "#errors li.race")]
        if not entries:
            fail("the page lists no race")
        entries[0].click()
        if not stepno.text.startswith("step "):
            fail("the race's entry shows %r" % stepno.text)
        at = int(stepno.text.split()[1]) - 1
        block_shown = int(browser.find_element(By.ID, "block").get_attribute("value"))
        launch_shown = int(browser.find_element(By.ID, "launch").get_attribute("value"))
        mine = [e for e in races if e["step"] == at and e["block"] == block_shown and e["launch"] == launch_shown]
        if not mine:
            fail("the race's entry took the page to launch %d, block %d, step %d, where the trace has no race" % (
                launch_shown + 1, block_shown, at + 1))
        race = mine[0]
        red = browser.find_elements(By.CSS_SELECTOR, "#frame rect.race")
        if not red:
            fail("no word is drawn red at the race's step")
        first = race["accesses"][0]
        marked = [d.get_attribute("textContent") for d in browser.find_elements(By.CSS_SELECTOR, "#source div.mine")]
        if not any(t.split()[0] == str(first["line"]) for t in marked if t.split()):
            fail("the source panel does not mark line %d for thread %d (marked: %r)" % (
                first["line"], first["thread"], marked))
        thread = browser.find_element(By.ID, "thread").text
        if "thread %d" % first["thread"] not in thread:
            fail("the thread panel does not follow thread %d: %r" % (first["thread"], thread))
        if len(sys.argv) > 3:
            said = check_meeting(browser, sys.argv[3], out)
    finally:
        browser.quit()
    print("ok: %d steps, the race at step %d drawn red, line %d marked%s" % (
        steps, race["step"] + 1, first["line"], "; " + said if len(sys.argv) > 3 else ""))


def check_meeting(browser, program, out):
    """The page of lab 8 whose blocks meet through __device__ variables shows their meeting."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    page, trace = os.path.join(out, "lab8.html"), os.path.join(out, "lab8.json")
    run = subprocess.run([program, "--stage", "8", "--impl", "labs", "--picture", page, "--trace", trace],
                         capture_output=True, text=True, timeout=100)
    if run.returncode not in (0, 1):  # 1: drawn, and a run of the lab went wrong
        fail("the picture of lab 8 was not drawn: " + run.stderr)
    with open(trace) as f:
        doc = json.load(f)
    runs = doc["impls"][0]["runs"]
    browser.get("file://" + os.path.abspath(page))
    WebDriverWait(browser, 30).until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    entries = browser.find_elements(By.CSS_SELECTOR, "#errors li.stale_read")
    if not entries:
        fail("the page of lab 8 lists no stale read")
    entries[0].click()
    for k, r in enumerate(runs):
        if k:
            Select(browser.find_element(By.ID, "run")).select_by_value(str(k))
        trace_run = r["trace"]
        blocks = [b["index"][0] for b in trace_run["launches"][0]["blocks"]]
        stale = [e for e in trace_run["errors"] if e["kind"] == "stale_read"][0]
        line = stale["accesses"][1]["line"]
        texts = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#meeting svg text") if t.is_displayed()]
        drawn = [int(t.split()[1]) for t in texts if t.startswith("block ") and t.split()[1].isdigit()
                 and len(t.split()) == 2]
        if drawn != blocks:
            fail("%d threads: the meeting shows the blocks %r, the trace ran %r" % (r["threads"], drawn, blocks))
        red = " ".join(t.get_attribute("textContent") for t in browser.find_elements(By.CSS_SELECTOR, "#meeting svg text")
                       if t.get_attribute("fill") == "#b00000")
        if "block_sums" not in red or "(line %d)" % line not in red:
            fail("%d threads: the meeting has no red row of block_sums at line %d: %r" % (r["threads"], line, red))
        if not any("blocks_done" in t for t in texts):
            fail("%d threads: the meeting does not name blocks_done" % r["threads"])
    return "lab 8's meeting shown at %d block sizes, its stale read red at line %d" % (len(runs), line)


if __name__ == "__main__":
    main()
