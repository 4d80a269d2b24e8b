"""The resource API: repositories, issues, studies, my annotations, import jobs, published studies."""
